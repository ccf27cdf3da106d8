// Live cluster view: the first picture comes from the telemetry endpoint, then the
// kube32.cluster SSE topic refreshes it every 2 s and kube32.presence counts viewers.
"use strict";
const base = location.pathname.replace(/\/[^/]*$/, "");

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function fill(id, rows) {
  const body = document.querySelector(`#${id} tbody`);
  body.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement("tr");
    tr.append(...cells);
    return tr;
  }));
}

function render(t) {
  fill("nodes", t.nodes.map((n) => [cell(n.name), cell(n.role), cell(n.ip || ""),
    cell(n.ready ? "Ready" : "NotReady", n.ready ? "ready" : "notready")]));
  fill("pods", t.pods.map((p) => [cell(p.namespace), cell(p.name), cell(p.phase), cell(p.node || "<none>")]));
  document.getElementById("heap").textContent = t.heapBytes;
  document.getElementById("uptime").textContent = Math.round(t.uptimeMs / 1000);
  document.getElementById("rv").textContent = t.resourceVersion;
}

fetch(`${base}/telemetry`).then((r) => r.json()).then(render).catch(() => {});

const live = document.getElementById("live");
const events = new EventSource(`${base}/events`);
events.addEventListener("cluster", (e) => {
  render(JSON.parse(e.data));
  live.textContent = "live";
  live.className = "badge ok";
});
events.addEventListener("presence", (e) => {
  document.getElementById("viewers").textContent = `${JSON.parse(e.data).viewers} viewing`;
});
events.onerror = () => { live.textContent = "reconnecting…"; live.className = "badge"; };
