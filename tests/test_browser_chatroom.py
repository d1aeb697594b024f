"""The chatroom page in a real browser (Debian's Chromium driven by Playwright): two people, two rooms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.chat.chatroom import Chatroom
from bot.chat.server import ChatroomConfig
from bot.dialogue.dialogue import Dialogue

from conftest import REPO

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
ARTIFACTS = REPO / "artifacts"


def need_browser():
    try:
        import playwright  # noqa: F401
    except ImportError:
        playwright = None
    if playwright is None or not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Playwright or /usr/bin/chromium is missing (scripts/setup.sh --test installs them)")
        pytest.skip("Playwright or /usr/bin/chromium is missing")


async def ask(page, text: str) -> str:
    """Type a question, wait for the bot's next reply and return its text."""
    before = await page.locator(".msg.bot:not(.thinking)").count()
    await page.fill("#text", text)
    await page.press("#text", "Enter")
    # locators, not wait_for_function: the page's Content-Security-Policy forbids the eval that the latter needs
    await page.locator(".msg.bot:not(.thinking)").nth(before).wait_for(timeout=30_000)
    return await page.locator(".msg.bot:not(.thinking) .body").nth(before).inner_text()


async def enter(browser, url: str, name: str):
    context = await browser.new_context(viewport={"width": 1100, "height": 760})
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    await page.fill("#login-name", name)
    await page.click("#login-form button")
    await page.wait_for_selector("#composer:visible")
    await page.locator("#room-list li").first.wait_for()
    return context, page, errors


async def test_the_first_screen_is_the_join_card_alone_and_an_empty_room_offers_example_questions(mini_agent, tmp_path):
    need_browser()
    from playwright.async_api import async_playwright

    from bot.chat.examples import examples_for

    examples = examples_for(mini_agent)
    config = ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="pw", examples=examples)
    chatroom = Chatroom(Dialogue(mini_agent).reply, config)
    url = await chatroom.start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = await browser.new_context(viewport={"width": 1100, "height": 760})
            page = await context.new_page()
            errors = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(url)
            await page.locator("#login-view").wait_for()
            assert await page.locator("#login-name").is_visible()
            for hidden in ("#chat-view", "#new-room", "#room-title", "#composer", "#login-secret", "#who", "#login-error"):
                assert not await page.locator(hidden).is_visible(), hidden  # no room panel, no token on loopback
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "chatroom-join.png"))

            await page.fill("#login-name", "Ann")
            await page.click("#login-form button")
            await page.wait_for_selector("#composer:visible")
            assert not await page.locator("#login-view").is_visible() and not await page.locator("#room-error").is_visible()
            buttons = page.locator("#messages .example")
            await buttons.first.wait_for()
            shown = [await buttons.nth(i).inner_text() for i in range(await buttons.count()) if await buttons.nth(i).is_visible()]
            assert shown and shown == [e["question"] for e in examples][: len(shown)]
            await page.screenshot(path=str(ARTIFACTS / "chatroom-empty-room.png"))

            await page.locator("#messages .example", has_text="Who directed Hamlet 1996?").click()
            await page.locator(".msg.bot:not(.thinking)").first.wait_for(timeout=30_000)
            assert "Who directed Hamlet 1996?" in await page.locator(".msg.mine").first.inner_text()
            assert "Kenneth Branagh" in await page.locator(".msg.bot:not(.thinking) .body").first.inner_text()
            assert await page.locator("#messages .example").count() == 0  # a room with messages shows none
            assert errors == []
            await browser.close()
    finally:
        await chatroom.stop()


async def test_two_people_two_rooms_answers_trace_and_rating(mini_agent, tmp_path):
    need_browser()
    from playwright.async_api import async_playwright

    chatroom = Chatroom(Dialogue(mini_agent).reply, ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="pw"))
    url = await chatroom.start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            ann_ctx, ann, ann_errors = await enter(browser, url, "Ann")
            bob_ctx, bob, bob_errors = await enter(browser, url, "Bob")

            assert "Gus Van Sant" in await ask(ann, "Who directed Good Will Hunting?")
            assert "Kenneth Branagh" in await ask(bob, "Who directed Hamlet 1996?")
            follow_up = await ask(ann, "And who wrote it?")
            assert "Matt Damon" in follow_up and "Ben Affleck" in follow_up
            clarify = await ask(bob, "Who directed Hamlet?")
            assert "1948" in clarify and "1996" in clarify
            assert "Laurence Olivier" in await ask(bob, "1948")

            # each person sees only their own room
            assert "Hamlet" not in await ann.locator("#messages").inner_text()
            assert "Good Will Hunting" not in await bob.locator("#messages").inner_text()

            # the trace panel shows the pipeline stages with timings and the SPARQL query
            await ann.locator(".trace-toggle").first.click()
            trace = await ann.locator(".trace").first.inner_text()
            for stage in ("classification", "query", "phrasing", "ms"):
                assert stage in trace
            assert "SELECT" in trace
            # long values (the reader's readings) stay inside the answer's bubble, none runs off to the right
            bubble = await ann.locator(".msg.bot").first.bounding_box()
            parts = ann.locator(".trace .chip, .trace pre")
            boxes = [await parts.nth(i).bounding_box() for i in range(await parts.count())]
            assert boxes and all(box["x"] + box["width"] <= bubble["x"] + bubble["width"] for box in boxes)

            # rating an answer stores a Speakeasy reaction
            await ann.locator(".rate[data-type='STAR']").first.click()
            await ann.wait_for_selector(".rate.on[data-type='STAR']")
            room_uid = (await ann.evaluate("location.hash")).split("=")[1]
            assert {"messageOrdinal": 1, "type": "STAR"} in chatroom.server.history.reactions(room_uid)

            ARTIFACTS.mkdir(exist_ok=True)
            await ann.screenshot(path=str(ARTIFACTS / "chatroom-ann.png"))
            await bob.screenshot(path=str(ARTIFACTS / "chatroom-bob.png"))

            # a reload shows the room's history
            await ann.reload()
            await ann.locator(".msg.bot").nth(1).wait_for()
            assert "Gus Van Sant" in await ann.locator("#messages").inner_text()

            assert ann_errors == [] and bob_errors == []
            await ann_ctx.close()
            await bob_ctx.close()
            await browser.close()
    finally:
        await chatroom.stop()


HOSTILE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><b>bold</b> javascript:alert(1)'


def hostile_echo(message):
    from bot.core.contracts import Reply

    return Reply(f"You said: {message.text} — see tt0119217, wd:Q42 and https://evil.invalid/x image:../api/logout", "factual")


async def test_the_page_renders_hostile_names_and_messages_as_text_and_keeps_the_session_safe(tmp_path):
    need_browser()
    from playwright.async_api import async_playwright

    chatroom = Chatroom(hostile_echo, ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="pw"))
    url = await chatroom.start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = await browser.new_context()
            page = await context.new_page()
            errors = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            response = await page.goto(url)
            policy = response.headers["content-security-policy"]
            assert "script-src 'self'" in policy and "unsafe-inline" not in policy
            assert await page.evaluate("[...document.scripts].every((s) => s.src && !s.textContent.trim())")

            # a display name made of HTML is refused with a clear message, and nothing runs
            await page.fill("#login-name", '<img src=x onerror="window.__xss = 3">')
            await page.click("#login-form button")
            await page.locator("#login-error:not(:empty)").wait_for()
            assert "name" in (await page.locator("#login-error").inner_text()).lower()
            await page.fill("#login-name", "Zoë O'Brien-Ünal")
            await page.click("#login-form button")
            await page.wait_for_selector("#composer:visible")
            assert await page.locator("#who").inner_text() == "signed in as Zoë O'Brien-Ünal"

            reply = await ask(page, HOSTILE)
            mine = await page.locator(".msg.mine .body").first.inner_text()
            assert "<script>" in mine and "onerror" in mine and "<b>bold</b>" in mine  # shown as the text it is
            assert "<script>" in reply
            assert await page.evaluate("window.__xss") is None
            assert await page.locator("#messages img, #messages script, #messages b").count() == 0
            links = await page.eval_on_selector_all("#messages a", "(as) => as.map((a) => a.href)")
            assert links == ["https://www.imdb.com/title/tt0119217/", "https://www.wikidata.org/wiki/Q42"]

            cookies = {c["name"]: c for c in await context.cookies()}
            assert cookies["SESSIONID"]["httpOnly"] and cookies["SESSIONID"]["sameSite"] == "Strict"
            assert "SESSIONID" not in await page.evaluate("document.cookie")
            assert errors == []
            await browser.close()
    finally:
        await chatroom.stop()


async def test_an_exposed_chatroom_needs_the_access_token_and_limits_each_persons_messages(tmp_path):
    need_browser()
    from playwright.async_api import async_playwright

    config = ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="pw", access_token="letmein",
                            messages_per_minute=3)
    chatroom = Chatroom(hostile_echo, config)
    url = await chatroom.start()
    chatroom.server.config.host = "0.0.0.0"  # as if bound to every address; the socket itself stays on loopback
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = await browser.new_page()
            await page.goto(url)
            await page.wait_for_selector("#login-secret-row:not([hidden])")
            assert await page.locator("#login-secret").is_visible()  # the token field, only where one is needed
            await page.fill("#login-name", "Ann")
            await page.click("#login-form button")  # no token
            await page.locator("#login-error:not(:empty)").wait_for()
            assert "Invalid credentials" in await page.locator("#login-error").inner_text()
            await page.fill("#login-secret", "letmein")
            await page.click("#login-form button")
            await page.wait_for_selector("#composer:visible")
            for i in range(3):
                assert "You said" in await ask(page, f"question {i}")
            await page.fill("#text", "one too many")
            await page.press("#text", "Enter")
            await page.locator("#room-error", has_text="Too many messages").wait_for()
            assert await page.input_value("#text") == "one too many"  # kept, to send later
            await browser.close()
    finally:
        await chatroom.stop()


LISTS = {
    "recommend": ("If you like The Lion King, you might enjoy:\n1. Beauty and the Beast (1991): shares the producer Don Hahn with The Lion King.\n"
                  "2. Dumbo (1941): shares two genres with The Lion King.\n3. Bambi (1942): shares a genre with The Lion King.\n"
                  "4. Tarzan (1999): shares a genre with The Lion King.\n(Picked by closeness in the KG embeddings.)",
                  ["Beauty and the Beast", "Dumbo", "Bambi", "Tarzan"]),
    "runtimes": ("The 14 films directed by Peter Jackson have 14 durations in my knowledge graph: 178 minutes, 179 minutes, 201 minutes, 104 minutes and 10 more.",
                 ["178", "179", "201", "104", "169", "161", "144", "100", "99", "97", "93", "92", "91", "90"]),
}


FILMS = [f"Film {n}" for n in range(1, 26)]
LISTS["films"] = ("Films in the genre drama (25 in all): " + ", ".join(FILMS[:-1]) + " and " + FILMS[-1] + ".", FILMS)


def scripted_lists(message):
    from bot.core.contracts import Reply

    text, answers = LISTS[message.text]
    return Reply(text, "recommendation" if message.text == "recommend" else "factual", answers=answers)


async def test_lists_render_without_stray_numbers_and_keep_their_units(tmp_path):
    need_browser()
    from playwright.async_api import async_playwright

    chatroom = Chatroom(scripted_lists, ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="pw"))
    url = await chatroom.start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            ctx, page, errors = await enter(browser, url, "Ann")
            recommended = await ask(page, "recommend")
            assert "1.:" not in recommended and "enjoy:\n" in recommended
            items = page.locator(".msg.bot .body ol li")
            assert await items.count() == 4
            assert (await items.nth(0).inner_text()).startswith("Beauty and the Beast (1991): shares the producer Don Hahn")
            await ask(page, "runtimes")
            runtimes = page.locator(".msg.bot .body ul li")
            assert await runtimes.count() == 14  # the whole list, also the 10 the sentence left out
            assert [await runtimes.nth(i).inner_text() for i in (0, 3, 13)] == ["178 minutes", "104 minutes", "90 minutes"]
            await ask(page, "films")
            films = page.locator(".msg.bot").last.locator(".body ul li")
            assert await films.count() == 25
            assert [await films.nth(i).is_visible() for i in (0, 9, 10, 24)] == [True, True, False, False]  # collapsed after 10
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "chatroom-lists.png"))
            await page.locator(".msg.bot").last.locator(".show-all", has_text="show all 25").click()
            assert all([await films.nth(i).is_visible() for i in range(25)])
            assert await page.locator(".msg.bot").last.locator(".show-all").count() == 0
            assert errors == []
            await ctx.close()
            await browser.close()
    finally:
        await chatroom.stop()
