// codeact studio's page. Everything the phone, a model or a file says is shown
// with textContent, never as HTML. Every request goes to relative URLs, which
// carry the token in the page's own path.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { seq: 0, frame: -1, treeVersion: -1, tree: { elements: [], screen: [1, 1] }, picked: null, chosen: null, run: null, step: 0 };

function log(text) {
  $("log").textContent = text;
}

async function call(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const reply = await fetch(path, options);
  let data;
  try {
    data = await reply.json();
  } catch (e) {
    data = { error: "the studio answered " + reply.status };
  }
  if (!reply.ok) throw new Error(data.error || String(reply.status));
  return data;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// --- the live view -----------------------------------------------------------

async function live() {
  for (;;) {
    try {
      const news = await call("api/live?since=" + state.seq);
      state.seq = news.seq;
      if (news.frame !== state.frame) {
        state.frame = news.frame;
        $("screen").src = "frame.png?v=" + news.frame;
      }
      if (news.tree_version !== state.treeVersion) {
        state.treeVersion = news.tree_version;
        state.tree = news.tree || state.tree;
        drawTree();
      }
      const motion = news.fps > 0 ? news.fps + " frames/s" : "still";
      $("fps").textContent = news.device + " · " + motion + " · pictures by " + news.screenshots;
      $("problem").textContent = news.problem || "";
      const t = state.tree;
      $("where").textContent = (t.app || "") + (t.activity ? " " + t.activity : "");
    } catch (e) {
      $("problem").textContent = e.message;
      await sleep(1000);
    }
  }
}

/// A pointer event on the mirror as screen pixels.
function devicePoint(event) {
  const img = $("screen");
  const rect = img.getBoundingClientRect();
  const [w, h] = state.tree.screen;
  return {
    x: Math.round(((event.clientX - rect.left) * w) / rect.width),
    y: Math.round(((event.clientY - rect.top) * h) / rect.height),
  };
}

/// Places a box over the mirror on screen pixels [l, t, r, b].
function placeBox(box, bounds) {
  if (!bounds) {
    box.hidden = true;
    return;
  }
  const img = $("screen");
  const [w, h] = state.tree.screen;
  const sx = img.clientWidth / w, sy = img.clientHeight / h;
  box.style.left = bounds[0] * sx + "px";
  box.style.top = bounds[1] * sy + "px";
  box.style.width = Math.max(1, (bounds[2] - bounds[0]) * sx) + "px";
  box.style.height = Math.max(1, (bounds[3] - bounds[1]) * sy) + "px";
  box.hidden = false;
}

/// The smallest visible element under a point, as the server picks it.
function elementAt(x, y) {
  let best = null;
  for (const e of state.tree.elements) {
    const [l, t, r, b] = e.bounds;
    if (!e.visible || x < l || x >= r || y < t || y >= b) continue;
    const area = (r - l) * (b - t);
    if (!best || area < best.area || (area === best.area && e.depth > best.e.depth)) best = { e, area };
  }
  return best && best.e;
}

function label(e) {
  const cls = e.class.split(".").pop();
  let s = cls + (e.id ? " #" + e.id : "");
  if (e.text) s += ' "' + e.text + '"';
  if (e.desc) s += " desc=" + JSON.stringify(e.desc);
  if (e.checkable) s += e.checked ? " [on]" : " [off]";
  return s;
}

function drawTree() {
  const list = $("tree");
  const wanted = $("search").value.trim().toLowerCase();
  list.replaceChildren();
  for (const e of state.tree.elements) {
    const words = [e.text, e.desc, e.id, e.class, e.hint].join(" ").toLowerCase();
    if (wanted && !words.includes(wanted)) continue;
    const row = document.createElement("li");
    row.textContent = label(e);
    row.style.paddingLeft = Math.min(e.depth, 30) * 10 + "px";
    row.className = e.visible ? "" : "invisible";
    row.dataset.i = e.i;
    row.addEventListener("mouseenter", () => placeBox($("hover"), e.bounds));
    row.addEventListener("mouseleave", () => placeBox($("hover"), null));
    row.addEventListener("click", () => point({ element: e.i }));
    list.appendChild(row);
  }
}

// --- pointing -----------------------------------------------------------------

async function point(where) {
  // A pick under way leaves nothing of the last one to act on.
  state.picked = null;
  state.chosen = null;
  $("candidates").replaceChildren();
  $("element").textContent = "Looking…";
  try {
    const found = await call("api/point", where);
    state.picked = found;
    showPicked();
  } catch (e) {
    log(e.message);
  }
}

function showPicked() {
  const found = state.picked;
  const facts = $("element");
  const list = $("candidates");
  list.replaceChildren();
  $("canvas-cut").hidden = !found.cut;
  if (found.cut) $("cut-box").textContent = found.cut.join(",");
  $("cut-why").textContent = found.canvas ? "No element here:" : "Or";
  if (found.canvas) {
    facts.textContent = "No element at " + found.point.join(", ") + ": " + found.tap;
    state.chosen = null;
    placeBox($("picked-box"), found.cut);
    return;
  }
  const e = found.element;
  const flags = ["clickable", "checkable", "checked", "editable", "scrollable", "enabled"].filter((k) => e[k]);
  facts.textContent = [
    e.class + (e.resource_id ? "  " + e.resource_id : ""),
    e.text ? "text: " + e.text : "",
    e.desc ? "desc: " + e.desc : "",
    e.hint ? "hint: " + e.hint : "",
    "bounds: " + e.bounds.join(",") + "  " + flags.join(" "),
  ].filter(Boolean).join("\n");
  placeBox($("picked-box"), e.bounds);
  state.chosen = null;
  for (const c of found.candidates) {
    const item = document.createElement("li");
    item.className = "candidate" + (c.unique ? " unique" : "");
    item.dataset.source = c.source;
    const code = document.createElement("code");
    code.textContent = c.source;
    const how = document.createElement("span");
    how.className = "fares";
    how.textContent = " " + c.fares + " · " + c.lookup_us + " µs" + (c.best ? " · best" : "");
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = "Copy";
    copy.addEventListener("click", (ev) => {
      ev.stopPropagation();
      copyText(c.source);
    });
    item.append(code, how, copy);
    item.addEventListener("click", () => choose(c.source));
    list.appendChild(item);
    if (c.best) choose(c.source);
  }
  if (!state.chosen && found.candidates.length) choose(found.candidates[0].source);
}

function choose(source) {
  state.chosen = source;
  for (const item of document.querySelectorAll(".candidate")) item.classList.toggle("chosen", item.dataset.source === source);
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    log("copied " + text);
  } catch (e) {
    $("code").value = text;
    log("the browser keeps the clipboard to itself: the selector is in the console box");
  }
}

// --- acting and recording ---------------------------------------------------

function aimed() {
  if (state.chosen) return { selector: state.chosen, editable: !!(state.picked && state.picked.element && state.picked.element.editable) };
  if (state.picked && state.picked.point) return { x: state.picked.point[0], y: state.picked.point[1] };
  return {};
}

function showRun(result) {
  const lines = [];
  if (result.output) lines.push(result.output.trimEnd());
  for (const a of result.actions || []) {
    lines.push("· " + a.tool + "(" + a.args.join(", ") + ") " + (a.ok ? "ok" : "failed") + " (" + a.ms + " ms)" + (a.effect ? ": " + a.effect : ""));
  }
  if (result.value) lines.push("= " + result.value);
  if (result.error) {
    const at = result.error.line ? "line " + result.error.line + (result.error.column ? ", column " + result.error.column : "") + ": " : "";
    lines.push("error: " + at + result.error.message);
  }
  return lines.join("\n");
}

async function act(body) {
  try {
    const result = await call("api/act", body);
    log(showRun(result) || result.code);
    await showRecording();
  } catch (e) {
    log(e.message);
  }
}

async function assertion(kind) {
  const body = Object.assign({ kind }, aimed());
  const picked = (state.picked && state.picked.element) || {};
  if (kind === "text") body.text = picked.text || "";
  if (kind === "state") body.checked = !!picked.checked;
  try {
    const result = await call("api/assert", body);
    log(showRun(result) || result.code);
    await showRecording();
  } catch (e) {
    log(e.message);
  }
}

async function showRecording(data) {
  const shown = data || (await call("api/recording"));
  $("script").textContent = shown.script;
  $("record").checked = shown.on;
}

function mirrorEvents() {
  const mirror = $("mirror");
  let down = null;
  mirror.addEventListener("mousedown", (ev) => {
    ev.preventDefault();
    down = { p: devicePoint(ev), cx: ev.clientX, cy: ev.clientY };
  });
  mirror.addEventListener("mouseup", (ev) => {
    if (!down) return;
    const start = down;
    down = null;
    const end = devicePoint(ev);
    const moved = Math.hypot(ev.clientX - start.cx, ev.clientY - start.cy) > 8;
    const mode = document.querySelector("input[name=mode]:checked").value;
    if (mode === "act" && moved) act({ action: "swipe", x: start.p.x, y: start.p.y, x2: end.x, y2: end.y });
    else if (mode === "act") act({ action: "tap", x: end.x, y: end.y });
    else point({ x: end.x, y: end.y });
  });
  mirror.addEventListener("mousemove", (ev) => {
    const p = devicePoint(ev);
    const e = elementAt(p.x, p.y);
    placeBox($("hover"), e && e.bounds);
  });
  mirror.addEventListener("mouseleave", () => placeBox($("hover"), null));
}

// --- runs -----------------------------------------------------------------------

async function loadRuns() {
  try {
    const data = await call("api/runs");
    const select = $("runs");
    for (const r of data.runs) {
      const option = document.createElement("option");
      option.value = r.name;
      option.textContent = r.name;
      select.appendChild(option);
    }
  } catch (e) {
    log(e.message);
  }
}

function showStep() {
  const run = state.run;
  if (!run || !run.steps.length) return;
  state.step = Math.max(0, Math.min(state.step, run.steps.length - 1));
  const s = run.steps[state.step];
  $("step-n").textContent = "step " + s.number + " of " + run.steps.length + (run.outcome ? " · " + run.outcome : "");
  const picture = s.seen || (s.actions.find((a) => a.screenshot) || {}).screenshot;
  $("step-img").hidden = !picture;
  if (picture) $("step-img").src = "api/run/file?name=" + encodeURIComponent(run.name) + "&file=" + encodeURIComponent(picture);
  const text = [];
  if (s.reply) text.push("thought / reply:\n" + s.reply);
  if (s.code) text.push("code:\n" + s.code);
  if (s.output) text.push("output:\n" + s.output);
  for (const a of s.actions) text.push("· " + a.tool + "(" + a.args.join(", ") + ") " + a.result + (a.effect ? ": " + a.effect : ""));
  for (const e of s.errors) text.push("error: " + e);
  for (const n of s.notes) text.push("note: " + n);
  $("step-text").textContent = text.join("\n");
}

// --- wiring ---------------------------------------------------------------------

function wire() {
  mirrorEvents();
  $("search").addEventListener("input", drawTree);
  $("back").addEventListener("click", () => act({ action: "back" }));
  $("home").addEventListener("click", () => act({ action: "home" }));
  $("press").addEventListener("click", () => act({ action: "key", key: $("key").value.trim() }));
  $("open").addEventListener("click", () => act({ action: "open_app", package: $("package").value.trim() }));
  $("tap").addEventListener("click", () => act(Object.assign({ action: "tap" }, aimed())));
  $("long").addEventListener("click", () => act(Object.assign({ action: "long_press" }, aimed())));
  $("type").addEventListener("click", () => act(Object.assign({ action: "type", text: $("text").value }, aimed())));
  $("clear").addEventListener("click", () => act(Object.assign({ action: "clear" }, aimed())));
  $("assert-visible").addEventListener("click", () => assertion("visible"));
  $("assert-gone").addEventListener("click", () => assertion("not_visible"));
  $("assert-text").addEventListener("click", () => assertion("text"));
  $("assert-state").addEventListener("click", () => assertion("state"));
  $("cut").addEventListener("click", async () => {
    try {
      const box = $("cut-box").textContent.split(",").map(Number);
      const made = await call("api/cut", { name: $("cut-name").value.trim(), box });
      log("cut: " + made.selector + (made.warning ? " (" + made.warning + ")" : ""));
      choose(made.selector);
      state.chosen = made.selector;
    } catch (e) {
      log(e.message);
    }
  });
  $("record").addEventListener("change", async () => {
    try {
      await showRecording(await call("api/recording", { on: $("record").checked, from_app: $("from-app").checked }));
    } catch (e) {
      log(e.message);
    }
  });
  $("clear-recording").addEventListener("click", async () => showRecording(await call("api/recording", { clear: true })));
  $("save").addEventListener("click", async () => {
    try {
      const saved = await call("api/save", { path: $("save-path").value.trim(), overwrite: $("overwrite").checked });
      $("saved").textContent = "saved " + saved.saved;
    } catch (e) {
      $("saved").textContent = e.message;
    }
  });
  $("run").addEventListener("click", async () => {
    try {
      $("out").textContent = showRun(await call("api/run", { code: $("code").value }));
    } catch (e) {
      $("out").textContent = e.message;
    }
  });
  $("runs").addEventListener("change", async () => {
    const name = $("runs").value;
    $("run-view").hidden = !name;
    if (!name) return;
    try {
      state.run = await call("api/run?name=" + encodeURIComponent(name));
      state.step = 0;
      showStep();
    } catch (e) {
      log(e.message);
    }
  });
  $("prev").addEventListener("click", () => { state.step -= 1; showStep(); });
  $("next").addEventListener("click", () => { state.step += 1; showStep(); });
}

async function loadTools() {
  try {
    const data = await call("api/tools");
    for (const t of data.tools) {
      const item = document.createElement("li");
      item.textContent = t;
      $("tools").appendChild(item);
    }
  } catch (e) {
    log(e.message);
  }
}

wire();
showRecording().catch((e) => log(e.message));
loadTools();
loadRuns();
live();
