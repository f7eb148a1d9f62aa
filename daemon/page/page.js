// forgesync's status page (SPEC §14). Every string from the daemon is set
// as text, never as HTML: pack names, versions, reasons and paths come
// from archives anyone can make.
"use strict";

let csrf = "";

// el makes an element; strings among children become text nodes.
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return e;
}

function show(id, text) {
  const e = document.getElementById(id);
  e.textContent = text;
  e.hidden = text === "";
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

// call sends a request to the daemon; a change carries the session's
// CSRF token. It returns the decoded answer or throws the daemon's message.
async function call(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") init.headers["X-Forgesync-CSRF"] = csrf;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const msg = data.error ? data.error.message : r.status + " " + r.statusText;
    throw new Error(msg);
  }
  return data;
}

// act runs a change and refreshes the page, showing an error in words.
async function act(method, path, body) {
  try {
    show("error", "");
    await call(method, path, body);
  } catch (e) {
    show("error", e.message);
  }
  await refresh();
}

function packRow(p) {
  const toggle = p.enabled
    ? el("button", { class: "disable", type: "button", onclick: () => act("POST", "/v1/packs/" + encodeURIComponent(p.id) + "/disable") }, "Disable")
    : el("button", { class: "enable", type: "button", onclick: () => act("POST", "/v1/packs/" + encodeURIComponent(p.id) + "/enable") }, "Enable");
  const remove = el("button", { class: "remove", type: "button", onclick: () => {
    if (confirm("Remove " + p.id + "?")) act("DELETE", "/v1/packs/" + encodeURIComponent(p.id));
  } }, "Remove");
  return el("tr", { "data-pack": p.id, class: p.enabled ? "enabled" : "disabled" },
    el("td", {}, el("span", { class: "name" }, p.name || p.id), " ", el("span", { class: "muted" }, p.id)),
    el("td", { class: "version" }, p.version),
    el("td", { class: "state" }, p.enabled ? "yes" : "no"),
    el("td", {}, p.doors), el("td", {}, p.lifts), el("td", {}, p.piece_count),
    el("td", {}, toggle, remove));
}

function rejectionItem(r) {
  const reasons = el("ul", {});
  for (const why of r.reasons || []) {
    const where = [why.file, why.path, why.line ? "line " + why.line : ""].filter(Boolean).join(" ");
    reasons.append(el("li", { class: "reason" }, (where ? where + ": " : "") + why.message + (why.rule ? " (" + why.rule + ")" : "")));
  }
  const retry = el("button", { class: "retry", type: "button", onclick: () => act("POST", "/v1/rejections/retry", { archives: [r.archive] }) }, "Retry");
  const what = r.pack ? r.pack + (r.version ? " " + r.version : "") : "";
  return el("li", { "data-archive": r.archive }, el("strong", { class: "archive" }, r.archive), what ? " " : null,
    what ? el("span", { class: "pack" }, what) : null, " ", retry, reasons);
}

function renderStatus(st) {
  const c = st.counts || {};
  show("state", "Daemon " + (st.version || "") + ": " + st.state + ", " + (c.packs || 0) + " packs (" + (c.enabled || 0) + " enabled), " + (c.rejected || 0) + " rejected, generation " + st.generation);
  show("disk", "Kept archives: " + bytes(st.kept_archive_bytes || 0));
  const gates = document.getElementById("gates");
  gates.replaceChildren();
  const m = st.modules;
  if (!m) { gates.append(el("li", {}, "No version gate checked yet.")); return; }
  for (const mod of m.gates.mods || []) {
    gates.append(el("li", {}, mod.mod + " " + (mod.version || "not found") + " (needs " + mod.minimum + "): " + mod.state + (mod.reason ? ": " + mod.reason : "")));
  }
  gates.append(el("li", { id: "doors" }, "Door automation: " + (m.door_automation ? "on" : "off") + (m.door_automation_off ? " (" + m.door_automation_off + ")" : "")));
  for (const why of m.gates.reasons || []) gates.append(el("li", {}, why));
}

function renderSet(info) {
  const dl = document.getElementById("set");
  dl.replaceChildren();
  const row = (k, v) => dl.append(el("dt", {}, k), el("dd", {}, v));
  if (!info || !info.source) { row("Followed set", "none"); return; }
  row("Followed set", info.source);
  row("Signed by", info.signed_by || "not signed by a trusted key");
  const lc = info.last_check;
  if (lc) {
    row("Last check", new Date(lc.time).toLocaleString() + ": " + lc.result + (lc.error ? " (" + lc.error + ")" : ""));
    if (lc.delta) {
      const whole = lc.delta.seed_bytes + lc.delta.fetched_bytes;
      row("Delta savings", bytes(lc.delta.seed_bytes) + " of " + bytes(whole) + " reused; " + bytes(lc.delta.wire_bytes) + " downloaded");
    }
  }
  if (info.set) row("Machine", info.set.equal ? "equals the set" : (info.set.differences || []).length + " differences from the set");
}

// renderUpdate says when a newer forgesync exists ([update] check), or
// why the last look at the release feed failed; nothing when the daemon
// does not check.
function renderUpdate(u) {
  const p = document.getElementById("update");
  if (!u || !u.checking) { show("update", ""); return; }
  if (u.available) {
    show("update", "forgesync " + u.latest + " is out (this is " + u.current + "): run forgesync update.");
    p.className = "available";
  } else if (u.error) {
    show("update", "Could not look for a newer forgesync: " + u.error);
    p.className = "muted";
  } else {
    show("update", "");
  }
}

// renderProfiles lists the profiles (SPEC §12): each with its source,
// packs and disk, a button to switch to it (when every archive it needs is
// on the machine) and, but for own and the current one, to remove it.
function renderProfiles(ps) {
  const ul = document.getElementById("profile-list");
  ul.replaceChildren();
  for (const p of (ps && ps.profiles) || []) {
    const li = el("li", { "data-profile": p.name, class: p.current ? "current" : "" },
      el("strong", {}, p.name), " (" + p.source + "): " + (p.packs || []).length + " packs, " + bytes(p.bytes || 0) + " kept, " + bytes(p.own_bytes || 0) + " its own");
    if (p.current) {
      li.append(" ", el("span", { class: "muted" }, "(current)"));
    } else if ((p.missing || []).length > 0) {
      li.append(" ", el("span", { class: "muted" }, "(" + p.missing.length + " archives not on this machine)"));
    } else {
      li.append(" ", el("button", { class: "switch", type: "button", onclick: () => act("POST", "/v1/profile/switch", { name: p.name }) }, "Switch to this"));
    }
    if (!p.current && p.source !== "own") {
      li.append(el("button", { class: "remove-profile", type: "button", onclick: () => {
        if (confirm("Remove the profile " + p.name + "?")) act("POST", "/v1/profile/remove", { name: p.name });
      } }, "Remove"));
    }
    ul.append(li);
  }
}

function renderHistory(h) {
  const ol = document.getElementById("history");
  ol.replaceChildren();
  for (const g of (h.generations || []).slice().reverse()) {
    const li = el("li", { value: g.n, "data-generation": g.n }, "Generation " + g.n + ", " + g.cause + ", " + new Date(g.time).toLocaleString() + ": " + (g.packs || []).length + " packs");
    if (g.n !== h.current) li.append(" ", el("button", { class: "rollback", type: "button", onclick: () => act("POST", "/v1/rollback", { generation: g.n }) }, "Roll back to this"));
    else li.append(" ", el("span", { class: "muted" }, "(current)"));
    ol.append(li);
  }
}

async function refresh() {
  try {
    const [st, packs, rej, hist] = await Promise.all([call("GET", "/v1/status"), call("GET", "/v1/packs"), call("GET", "/v1/rejections"), call("GET", "/v1/history")]);
    renderStatus(st);
    document.querySelector("#packs tbody").replaceChildren(...packs.packs.map(packRow));
    document.getElementById("rejections").replaceChildren(...rej.rejections.map(rejectionItem));
    renderHistory(hist);
    renderSet(await call("GET", "/v1/set").catch(() => null));
    renderUpdate(await call("GET", "/v1/update").catch(() => null));
    renderProfiles(await call("GET", "/v1/profiles").catch(() => null));
  } catch (e) {
    show("error", e.message);
  }
}

// progress shows an install's progress from the event stream.
function progress(ev) {
  const bar = document.getElementById("progress");
  const d = ev.data || {};
  if (ev.type === "progress" && d.total > 0) {
    bar.max = d.total;
    bar.value = d.done;
    show("install-archive", "Installing " + d.archive + ": " + bytes(d.done) + " of " + bytes(d.total));
  } else if (ev.type === "sync-finished") {
    bar.value = 0;
    show("install-archive", "Nothing is being installed.");
  }
}

// follow reads the event stream (NDJSON) and refreshes on every change,
// so the page is live without a reload; it reconnects from the last id.
async function follow() {
  let since = 0;
  for (;;) {
    try {
      const r = await fetch("/v1/events?since=" + since, { credentials: "same-origin", cache: "no-store" });
      if (r.status === 401 || r.status === 403) { show("error", "This page's session has ended; run forgesync open again."); return; }
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const ev = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          if (ev.id) since = ev.id;
          progress(ev);
          if (ev.type !== "progress") scheduleRefresh();
        }
      }
    } catch (e) {
      show("error", "Lost the daemon: " + e.message);
    }
    await new Promise((ok) => setTimeout(ok, 1000));
  }
}

let refreshTimer = 0;
function scheduleRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = 0; refresh(); }, 100);
}

async function start() {
  try {
    const s = await call("GET", "/v1/page/session");
    csrf = s.csrf;
    if (s.link) linkView(s.link);
  } catch (e) {
    show("state", "");
    show("error", "No session: open this page with forgesync open (" + e.message + ").");
    return;
  }
  document.getElementById("set-check").addEventListener("click", () => act("POST", "/v1/set/check"));
  await refresh();
  follow();
}

// linkView is the confirmation of a forgesync:// link: the set's diff
// against this machine, its size and signer, fetched by the daemon (the
// lock only); nothing is applied before the player clicks.
async function linkView(link) {
  document.getElementById("link").hidden = false;
  show("link-source", "A link asks this machine to use the pack set at " + link.url);
  let p;
  try {
    p = await call("POST", "/v1/set/preview", { url: link.url, key: link.key || undefined });
  } catch (e) {
    show("link-trust", "This set cannot be used: " + e.message);
    return;
  }
  const trust = document.getElementById("link-trust");
  trust.textContent = p.trust;
  trust.className = p.trusted ? "trusted" : "untrusted";
  show("link-summary", (p.name ? p.name + ": " : "") + p.pinned + " packs, " + bytes(p.total_bytes) + "; " +
    (p.comparison.equal ? "this machine already has exactly this set." : bytes(p.download_bytes) + " to download, " + p.comparison.differences.length + " changes:"));
  const ul = document.getElementById("link-diff");
  ul.replaceChildren(...p.comparison.differences.map((d) => el("li", { "data-diff": d.id },
    d.kind + " " + d.id + (d.want ? " " + d.want.version : "") + (d.have ? " (have " + d.have.version + ")" : ""))));
  for (const w of p.warnings) ul.append(el("li", { class: "warning" }, w));
  const confirmButton = document.getElementById("link-confirm");
  confirmButton.disabled = false;
  confirmButton.addEventListener("click", async () => {
    confirmButton.disabled = true;
    show("link-result", "Fetching and checking the set…");
    try {
      // Staged first (the key the link names, which the player has just
      // accepted), then applied by fingerprint from what is on the machine.
      const st = await call("POST", "/v1/set/stage", { url: link.url, key: link.key || undefined });
      show("link-result", "Applying " + st.name + "…");
      const res = await call("POST", "/v1/set/apply", { fingerprint: st.fingerprint });
      show("link-result", "Applied: the machine now has the set, as profile " + st.name + " (" + res.check.result + ").");
    } catch (e) {
      show("link-result", "Not applied: " + e.message);
    }
    await refresh();
  }, { once: true });
  document.getElementById("link-cancel").addEventListener("click", () => {
    document.getElementById("link").hidden = true;
  });
}

document.addEventListener("DOMContentLoaded", start);
