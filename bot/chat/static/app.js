// The moviebot chatroom page: plain DOM, no build step. Speaks the Speakeasy API of bot/chat/server.py.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { config: null, me: null, rooms: new Map(), current: null, messages: new Map(), unread: new Map(), stream: null, poll: null };

async function api(method, path, body, type) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.body = type ? body : JSON.stringify(body);
    init.headers["Content-Type"] = type || "application/json";
  }
  const resp = await fetch(path, init);
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw Object.assign(new Error(data.description || resp.statusText), { status: resp.status });
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "style") Object.assign(node.style, v);  // CSSOM, allowed by the page's style-src 'self'
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// --- text rendering: text nodes only; IMDb and Wikidata ids as links, the bot's image tokens as pictures ---
// Nothing anyone typed becomes markup or a link of its choosing: a link is built from an id alone.

const TOKEN = /(image:[\w\/.-]+|\b(?:tt|nm)\d{7,8}\b|\bwd:Q\d+\b|\bQ[1-9]\d{0,9}\b)/g;

function inline(text, fromBot) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    out.push(text.slice(last, m.index));
    const token = m[0];
    if (token.startsWith("image:")) {
      out.push(fromBot && state.config.images && !token.includes("..") ? el("img", { src: "/images/" + token.slice(6), alt: token, loading: "lazy" }) : token);
    } else if (/^(tt|nm)/.test(token)) {
      out.push(el("a", { href: `https://www.imdb.com/${token.startsWith("tt") ? "title" : "name"}/${token}/`, target: "_blank", rel: "noopener noreferrer" }, token));
    } else {
      out.push(el("a", { href: "https://www.wikidata.org/wiki/" + token.replace("wd:", ""), target: "_blank", rel: "noopener noreferrer" }, token));
    }
    last = m.index + token.length;
  }
  out.push(text.slice(last));
  return out;
}

function renderText(text, fromBot) {
  const nodes = [];
  let items = [];
  let numbered = false;
  const flush = () => { if (items.length) nodes.push(el(numbered ? "ol" : "ul", {}, items)); items = []; };
  for (const line of text.split("\n")) {
    const bullet = line.match(/^\s*(?:([-•*])|\d+\.)\s+(.*)$/);
    if (bullet) {
      if (!items.length) numbered = !bullet[1];
      items.push(el("li", {}, inline(bullet[2], fromBot)));
      continue;
    }
    flush();
    if (line.trim()) nodes.push(el("div", {}, inline(line, fromBot)));
  }
  flush();
  return nodes;
}

// "Lead-in: A, B, C and 9 more." -> the lead-in and one item per answer, each as the sentence shows it
// ("126 minutes", "the Academy Award for Best Picture"); the answers the sentence left out get the same
// words around them as the ones it shows. Null when the sentence is not a lead-in and a list of the answers.
function listItems(text, answers) {
  const colon = text.indexOf(": ");
  if (colon < 0 || text.slice(0, colon).includes(answers[0])) return null;
  const body = text.slice(colon + 2).replace(/\.$/, "");
  const found = [];
  let from = 0;
  for (const a of answers) {
    const at = body.indexOf(a, from);
    if (at < 0) break;
    found.push([at, a]);
    from = at + a.length;
  }
  if (!found.length) return null;
  const seps = /(, and |, | and )/g;
  const items = [];
  let start = 0;
  for (let i = 0; i < found.length; i++) {
    const [at, a] = found[i];
    let end = i + 1 < found.length ? found[i + 1][0] : body.length;
    const between = body.slice(at + a.length, end);
    let cut = -1;
    for (const m of between.matchAll(seps)) cut = m.index;  // the last separator before the next item
    if (i + 1 === found.length) {
      const more = between.match(/ and \d+ more$/);
      cut = more ? more.index : -1;
    }
    const stop = cut >= 0 ? at + a.length + cut : end;
    items.push({ text: body.slice(start, stop), label: a });
    const sep = cut >= 0 ? between.slice(cut).match(/^(, and |, | and )/) : null;
    start = stop + (sep ? sep[0].length : 0);
  }
  const affixes = items.map((it) => { const k = it.text.indexOf(it.label); return [it.text.slice(0, k), it.text.slice(k + it.label.length)]; });
  const same = affixes.every(([p, q]) => p === affixes[0][0] && q === affixes[0][1]);
  const [prefix, suffix] = same ? affixes[0] : ["", ""];
  const rest = answers.slice(items.length).map((a) => prefix + a + suffix);
  return { head: text.slice(0, colon + 1), items: [...items.map((it) => it.text), ...rest] };
}

function renderReply(text, reply) {
  const answers = reply ? reply.answers || [] : [];
  const list = answers.length > 3 && !text.includes("\n") ? listItems(text, answers) : null;
  if (list) {  // "Steven Spielberg directed 12 films in my knowledge graph: A, B, …" -> the lead-in and the whole list
    return [el("div", {}, inline(list.head, true)), el("ul", {}, list.items.map((item) => el("li", {}, inline(item, true))))];
  }
  const nodes = renderText(text, true);
  if (reply && reply.image) nodes.push(renderText("image:" + reply.image, true));
  return nodes;
}

// --- the trace panel -----------------------------------------------------------------------------

const STAGE_NAMES = { dialogue: "conversation", understand: "classification + linking", retrieve: "query", phrase: "phrasing" };

const LONG_CHIP = 40;

function chips(values) { return values.map((v) => el("span", { class: "chip" }, String(v))); }

function stageDetail(step) {
  const d = Object.assign({}, step);
  delete d.stage; delete d.ms;
  const parts = [];
  if (step.stage === "understand") {
    parts.push(el("div", {}, chips([`kind: ${d.kind}`, d.chain ? `chain: ${d.chain}` : null, `confidence: ${d.confidence}`].filter(Boolean))));
    for (const e of d.entities || []) {
      parts.push(el("div", {}, "entity ", el("b", {}, e.label), ` (${e.group}, match ${e.score}) `, inline(e.iri.replace("http://www.wikidata.org/entity/", "wd:"), true)));
    }
    delete d.kind; delete d.chain; delete d.confidence; delete d.entities;
  }
  if (d.sparql) { parts.push(el("pre", {}, d.sparql)); delete d.sparql; }
  const rest = Object.entries(d).map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
  // a long value (the reader's roles and readings) is a scrolling block, not a chip as wide as the page
  const short = rest.filter((text) => text.length <= LONG_CHIP), long = rest.filter((text) => text.length > LONG_CHIP);
  if (short.length) parts.push(el("div", {}, chips(short)));
  for (const text of long) parts.push(el("pre", {}, text));
  return parts;
}

function tracePanel(reply) {
  const steps = reply.trace || [];
  const max = Math.max(1, ...steps.map((s) => s.ms));
  const rows = steps.map((s) => el("tr", {},
    el("td", { class: "stage" }, STAGE_NAMES[s.stage] || s.stage),
    el("td", { class: "ms" }, el("span", { class: "bar", style: { width: `${Math.max(2, 60 * s.ms / max)}px` } }), `${s.ms.toFixed(1)} ms`),
    el("td", {}, stageDetail(s))));
  return el("div", { class: "trace" }, el("table", {}, el("tbody", {}, rows)),
    el("div", {}, `total ${Number(reply.latency_ms || 0).toFixed(1)} ms`));
}

// --- messages ------------------------------------------------------------------------------------

const RATINGS = [["THUMBS_UP", "▲ good", "a good answer"], ["THUMBS_DOWN", "▼ wrong", "wrong or unhelpful"], ["STAR", "★", "a great answer"]];

// --- long lists: the first LIST_SHOWN items, and a button for the rest -------------------------------

const LIST_SHOWN = 10;

function collapseLists(body, key) {
  body.querySelectorAll("ul, ol").forEach((list, n) => {
    const items = [...list.children];
    const listKey = `${key}:${n}`;
    if (items.length <= LIST_SHOWN + 2 || state.expanded.has(listKey)) return;  // one or two more are shown, not hidden behind a button
    items.slice(LIST_SHOWN).forEach((item) => { item.hidden = true; });
    const more = el("button", { type: "button", class: "link show-all", onclick: () => {
      items.forEach((item) => { item.hidden = false; });
      state.expanded.add(listKey);
      more.remove();
    } }, `show all ${items.length}`);
    list.after(more);
  });
}

function messageNode(m) {
  const room = state.rooms.get(state.current);
  const mine = room && m.authorAlias === room.alias;
  const bot = m.authorAlias === state.config.bot;
  const kind = m.reply ? m.reply.kind : "";
  const body = el("div", { class: "body" }, bot ? renderReply(m.message, m.reply) : renderText(m.message, false));
  const node = el("li", { class: `msg ${mine ? "mine" : ""} ${bot ? "bot kind-" + kind : ""}`, "data-ordinal": m.ordinal },
    el("div", { class: "author" }, m.authorAlias), body);
  if (bot) {
    collapseLists(body, `${state.current}:${m.ordinal}`);
    const tools = el("div", { class: "tools" });
    if (m.reply) {
      tools.append(`${Number(m.reply.latency_ms || 0).toFixed(0)} ms`);
      const key = `${state.current}:${m.ordinal}`;
      tools.append(el("button", { type: "button", class: "trace-toggle", title: "how this answer was found", onclick: () => {
        const open = node.querySelector(".trace");
        if (open) { open.remove(); state.openTraces.delete(key); } else { node.append(tracePanel(m.reply)); state.openTraces.add(key); }
      } }, "trace"));
    }
    for (const [type, icon, title] of RATINGS) {
      tools.append(el("button", { type: "button", class: "rate", "data-type": type, title, onclick: () => rate(m.ordinal, type) }, icon));
    }
    node.append(tools);
    if (m.reply && state.openTraces.has(`${state.current}:${m.ordinal}`)) node.append(tracePanel(m.reply));
  }
  return node;
}

// An empty room offers a few questions from the README's "What can I ask?" table (sent by the server in
// /api/config, only those this bot answers); a click asks it.
const EXAMPLES_SHOWN = 8;

function examplesNode() {
  const examples = state.config.examples || [];
  const buttons = examples.map((e, i) => {
    const button = el("button", { type: "button", class: "example", title: e.kind, onclick: () => send(e.question) }, e.question);
    button.hidden = i >= EXAMPLES_SHOWN;
    return button;
  });
  const more = examples.length > EXAMPLES_SHOWN ? el("button", { type: "button", class: "link more-examples", onclick: () => {
    buttons.forEach((b) => { b.hidden = false; });
    more.remove();
  } }, "more examples") : null;
  return el("li", { class: "examples" }, el("p", {}, "Ask me about films, for example:"), el("div", { class: "example-list" }, buttons), more);
}

function showMessages() {
  const list = $("messages");
  const msgs = [...(state.messages.get(state.current) || new Map()).values()].sort((a, b) => a.ordinal - b.ordinal);
  list.replaceChildren(...msgs.map(messageNode));
  if (!msgs.length && (state.config.examples || []).length) list.append(examplesNode());
  const last = msgs.at(-1);
  const room = state.rooms.get(state.current);
  if (last && room && last.authorAlias !== state.config.bot && room.remainingTime > 0) {
    list.append(el("li", { class: "msg bot thinking" }, `${state.config.bot} is thinking…`));
  }
  for (const r of state.reactions.get(state.current) || []) markReaction(r);
  list.scrollTop = list.scrollHeight;
}

function markReaction(r) {
  const button = document.querySelector(`.msg[data-ordinal="${r.messageOrdinal}"] .rate[data-type="${r.type}"]`);
  if (button) button.classList.add("on");
}

function addMessages(roomId, messages) {
  if (!state.messages.has(roomId)) state.messages.set(roomId, new Map());
  const store = state.messages.get(roomId);
  let fresh = 0;
  for (const m of messages) { if (!store.has(m.ordinal)) fresh++; store.set(m.ordinal, m); }
  if (roomId === state.current) showMessages();
  else if (fresh) { state.unread.set(roomId, (state.unread.get(roomId) || 0) + fresh); showRooms(); }
}

async function rate(ordinal, type) {
  try { await api("POST", `/api/room/${state.current}/reaction`, { messageOrdinal: ordinal, type }); markReaction({ messageOrdinal: ordinal, type }); }
  catch (e) { $("room-error").textContent = e.message; }
}

// --- rooms -------------------------------------------------------------------------------------------

function showRooms() {
  const rooms = [...state.rooms.values()].sort((a, b) => a.startTime - b.startTime);
  $("room-list").replaceChildren(...rooms.map((r, i) => {
    const others = r.userAliases.filter((a) => a !== r.alias && a !== state.config.bot);
    const unread = state.unread.get(r.uid);
    return el("li", { class: `${r.uid === state.current ? "current" : ""} ${r.remainingTime > 0 ? "" : "closed"}`, "data-uid": r.uid, onclick: () => openRoom(r.uid) },
      el("span", {}, `Room ${i + 1}${others.length ? " · with " + others.join(", ") : ""}`), unread ? el("span", { class: "badge" }, String(unread)) : null);
  }));
}

async function loadRooms() {
  const data = await api("GET", "/api/rooms");
  for (const r of data.rooms) state.rooms.set(r.uid, r);
  showRooms();
}

async function openRoom(uid) {
  state.current = uid;
  state.unread.delete(uid);
  history.replaceState(null, "", "#room=" + uid);
  const index = [...state.rooms.keys()].indexOf(uid) + 1;
  $("room-title").textContent = `Room ${index}`;
  $("copy-link").hidden = false;
  $("room-error").textContent = "";
  showRooms();
  await refreshRoom();
  $("text").focus();
}

async function refreshRoom() {
  if (!state.current) return;
  const data = await api("GET", `/api/room/${state.current}?since=0`);
  state.rooms.set(state.current, data.info);
  state.reactions.set(state.current, data.reactions);
  addMessages(state.current, data.messages);
  showMessages();
}

async function newRoom() {
  const data = await api("POST", "/api/rooms/request", { username: state.config.bot });
  await loadRooms();
  await openRoom(data.uid);
}

// --- events: server-sent, with polling while the stream is down -----------------------------------------

function listen() {
  if (state.stream) state.stream.close();
  const stream = new EventSource("/sse/rooms");
  state.stream = stream;
  stream.addEventListener("ROOMS", (e) => { for (const r of JSON.parse(e.data).rooms) state.rooms.set(r.uid, r); showRooms(); });
  stream.addEventListener("MESSAGE", (e) => { const m = JSON.parse(e.data); addMessages(m.roomId, [m]); });
  stream.addEventListener("REACTION", (e) => {
    const r = JSON.parse(e.data);
    if (!state.reactions.has(r.roomId)) state.reactions.set(r.roomId, []);
    state.reactions.get(r.roomId).push(r);
    if (r.roomId === state.current) markReaction(r);
  });
  stream.onopen = () => { clearInterval(state.poll); state.poll = null; };
  stream.onerror = () => { if (!state.poll) state.poll = setInterval(() => refreshRoom().catch(() => {}), 2000); };
}

async function send(text) {
  if (!text || !state.current) return;
  $("send").disabled = true;
  try { await api("POST", `/api/room/${state.current}`, text, "text/plain; charset=utf-8"); $("text").value = ""; $("room-error").textContent = ""; }
  catch (err) {  // the text stays in the box to send again
    $("text").value = text;
    $("room-error").textContent = err.message;
    if (err.status === 400) refreshRoom().catch(() => {});  // e.g. the room was closed meanwhile
  }
  finally { $("send").disabled = false; $("text").focus(); }
}

// --- start ---------------------------------------------------------------------------------------------

async function enter() {
  $("login-view").hidden = true;
  $("chat-view").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `signed in as ${state.me}`;
  await loadRooms();
  const wanted = (location.hash.match(/room=([\w-]+)/) || [])[1];
  if (wanted && !state.rooms.has(wanted)) {
    try { await api("PATCH", `/api/request/${wanted}`, state.me, "text/plain"); await loadRooms(); }
    catch (e) { $("room-error").textContent = "Could not join that room: " + e.message; }
  }
  listen();
  if (wanted && state.rooms.has(wanted)) await openRoom(wanted);
  else if (state.rooms.size) await openRoom([...state.rooms.keys()].at(-1));
  else await newRoom();
}

async function start() {
  state.reactions = new Map();
  state.openTraces = new Set();
  state.expanded = new Set();  // long lists shown whole ("room:ordinal:list")
  state.config = await api("GET", "/api/config");
  state.me = localStorage.getItem("moviebot-name");
  if (state.config.auth !== "open") {
    $("login-secret-row").hidden = false;
    $("login-secret-label").textContent = state.config.auth === "token" ? "Access token" : "Password";
  }
  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("login-name").value.trim();
    try {
      await api("POST", "/api/login", { username: name, password: $("login-secret").value });
      localStorage.setItem("moviebot-name", name);
      state.me = name;
      await enter();
    } catch (err) { $("login-error").textContent = err.message; }
  });
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    send($("text").value.trim());
  });
  $("text").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("composer").requestSubmit(); } });
  $("new-room").addEventListener("click", () => newRoom().catch((e) => { $("room-error").textContent = e.message; }));
  $("copy-link").addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(location.href));
  try {
    if (!state.me) throw new Error("not signed in");
    await enter();
  } catch (e) {
    $("chat-view").hidden = true;
    $("login-view").hidden = false;
    $("login-name").value = state.me || "";
    $("login-name").focus();
  }
}

start();
