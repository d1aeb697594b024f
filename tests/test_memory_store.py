"""Conversation memory in a shared SQLite file: a room answered by one replica goes on in another."""

from __future__ import annotations

import sqlite3

from bot.core.contracts import Message
from bot.core.kinds import Kind
from bot.dialogue.dialogue import Dialogue
from bot.dialogue.memory_store import InProcessMemory, SqliteMemory, memory_store
from bot.dialogue.tracker import Tracker


def replicas(mini_agent, tmp_path) -> tuple[Dialogue, Dialogue]:
    """Two dialogues as two bot processes would have them: nothing shared but the database file."""
    db = tmp_path / "memory.sqlite3"
    return Dialogue(mini_agent, SqliteMemory(db, Tracker)), Dialogue(mini_agent, SqliteMemory(db, Tracker))


def ask(dialogue: Dialogue, text: str, room: str = "!films") -> str:
    return dialogue.reply(Message(room, "@ann:localhost", text)).text


def test_a_follow_up_is_understood_by_the_replica_that_takes_the_room_over(mini_agent, tmp_path):
    first, second = replicas(mini_agent, tmp_path)
    assert "Gus Van Sant" in ask(first, "Who directed Good Will Hunting?")
    follow_up = ask(second, "And who wrote it?")
    assert "Matt Damon" in follow_up and "Ben Affleck" in follow_up


def test_a_clarification_asked_by_one_replica_is_resolved_by_the_other(mini_agent, tmp_path):
    first, second = replicas(mini_agent, tmp_path)
    asked = first.reply(Message("!films", "@ann:localhost", "Who directed Hamlet?"))
    assert asked.kind == Kind.CLARIFY and "1948" in asked.text and "1996" in asked.text
    assert "Kenneth Branagh" in ask(second, "the 1996 one")


def test_liked_films_carry_over_to_the_other_replica(mini_agent, tmp_path):
    first, second = replicas(mini_agent, tmp_path)
    assert "Noted" in ask(first, "I loved Milk.")
    memory = second.memory("!films")
    assert [o.label for o in memory.liked()] == ["Milk"]


def test_rooms_are_kept_apart_and_forgotten_on_request(mini_agent, tmp_path):
    first, second = replicas(mini_agent, tmp_path)
    ask(first, "Who directed Good Will Hunting?", room="!a")
    ask(first, "Who directed Milk?", room="!b")
    assert [u.text for u, _ in second.memory("!a").turns()] == ["Who directed Good Will Hunting?"]
    assert [u.text for u, _ in second.memory("!b").turns()] == ["Who directed Milk?"]
    second.forget("!a")
    assert first.memory("!a").turns() == []
    assert len(first.memory("!b").turns()) == 1


def test_the_stored_memory_is_the_memory(mini_agent, tmp_path):
    store = SqliteMemory(tmp_path / "m.sqlite3", Tracker)
    dialogue = Dialogue(mini_agent, InProcessMemory())
    ask(dialogue, "Who directed Good Will Hunting?")
    ask(dialogue, "Who directed Hamlet?")  # leaves a pending clarification with its reply and turn
    memory = dialogue.memory("!films")
    assert memory.pending() is not None
    store.save("!films", memory)
    assert store.load("!films") == memory
    assert store.load("!unknown") is None
    rows = sqlite3.connect(tmp_path / "m.sqlite3").execute("SELECT room FROM rooms").fetchall()
    assert rows == [("!films",)]


def test_the_settings_choose_the_store(mini_settings, tmp_path):
    assert isinstance(memory_store(mini_settings, Tracker), InProcessMemory)
    shared = memory_store(mini_settings.with_overrides(memory_db=str(tmp_path / "shared.sqlite3")), Tracker)
    assert isinstance(shared, SqliteMemory) and shared.path == tmp_path / "shared.sqlite3"



def _open_store(path: str, barrier, results) -> None:
    barrier.wait()  # every process opens the file at the same moment
    try:
        SqliteMemory(path, Tracker)
        results.put("ok")
    except sqlite3.OperationalError as exc:
        results.put(str(exc))


def test_replicas_starting_at_once_all_open_a_new_memory_file(tmp_path):
    """Several processes switching one new file to WAL mode at the same moment: none gives up."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    for attempt in range(4):
        path = str(tmp_path / f"shared-{attempt}.sqlite3")
        barrier, results = context.Barrier(6), context.Queue()
        processes = [context.Process(target=_open_store, args=(path, barrier, results)) for _ in range(6)]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=60) for _ in processes]
        for process in processes:
            process.join()
        assert outcomes == ["ok"] * 6
