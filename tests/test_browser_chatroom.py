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
    await page.wait_for_function(f"document.querySelectorAll('.msg.bot:not(.thinking)').length > {before}", timeout=30_000)
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
    await page.wait_for_function("document.querySelectorAll('#room-list li').length > 0")
    return context, page, errors


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
            await ann.wait_for_function("document.querySelectorAll('.msg.bot').length >= 2")
            assert "Gus Van Sant" in await ann.locator("#messages").inner_text()

            assert ann_errors == [] and bob_errors == []
            await ann_ctx.close()
            await bob_ctx.close()
            await browser.close()
    finally:
        await chatroom.stop()
