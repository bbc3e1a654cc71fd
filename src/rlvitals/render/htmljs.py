"""The small chart script every HTML page of rlvitals carries inline (our own, no library).

Each `<div class="rlv-chart" data-chart="K">` is drawn from `DATA.charts[K]` of the page's one
`<script type="application/json" id="rlv-data">` block, on two stacked canvases: the base (grid,
bands, reference lines, curves, NaN marks, onsets) and an overlay for the hover crosshair and the
zoom selection, so hovering never redraws the curves.  Drag across a chart to zoom (every chart of
the same group follows, the steps stay aligned), double-click to reset.  The points are those the
Python side kept (a per-pixel min/max envelope: a one-step spike survives); y is scaled to what is
in view.  Text from the log reaches the page only through `textContent` (never parsed as HTML).

Why canvas and not SVG: a path of a few thousand points per panel, a dozen panels, redrawn on
every zoom; canvas keeps the DOM small and the redraw at a few milliseconds.
"""

from __future__ import annotations

__all__ = ["CHART_CSS", "CHART_JS"]

CHART_CSS = """
.rlv-chart{position:relative;margin:0}
.rlv-chart canvas{display:block;width:100%}
.rlv-chart canvas.ov{position:absolute;left:0;top:0;cursor:crosshair}
.rlv-chart .ttl{font-weight:600;font-size:13px;margin:0 0 2px 2px}
.rlv-chart .lg{font-size:11px;color:#444;margin:2px 0 0 4px;line-height:1.5}
.rlv-chart .lg span{margin-right:10px;white-space:nowrap}
.rlv-chart .nt{font-size:11px;color:#7a4a00;margin:2px 0 0 4px}
.rlv-chart .lg i{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:4px}
.rlv-tip{position:fixed;pointer-events:none;background:rgba(255,255,255,.96);border:1px solid #bbb;
 border-radius:4px;padding:4px 7px;font:12px/1.45 ui-monospace,Menlo,Consolas,monospace;white-space:pre;
 display:none;z-index:10;box-shadow:0 1px 4px rgba(0,0,0,.15)}
"""

CHART_JS = r"""
(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("rlv-data").textContent);
var H = 190, PL = 54, PR = 12, PT = 10, PB = 22;
var charts = [], zoom = {};
var tip = document.createElement("div");
tip.className = "rlv-tip"; tip.id = "rlv-tip";
document.body.appendChild(tip);

function fmt(v) {
  if (v === null || !isFinite(v)) return String(v);
  var a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3).replace(/\.?0+e/, "e");
  return String(+v.toPrecision(4));
}
function lower(xs, x) {            // first index with xs[i] >= x
  var lo = 0, hi = xs.length;
  while (lo < hi) { var m = (lo + hi) >> 1; if (xs[m] < x) lo = m + 1; else hi = m; }
  return lo;
}
function ticks(lo, hi, n) {
  var span = hi - lo; if (!(span > 0)) return [lo];
  var step = Math.pow(10, Math.floor(Math.log10(span / n))), err = span / n / step;
  if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
  var out = [], t0 = Math.ceil(lo / step) * step;
  for (var t = t0; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}
function fullRange(spec) {
  var lo = Infinity, hi = -Infinity;
  spec.s.forEach(function (s) { if (s.x.length) { lo = Math.min(lo, s.x[0]); hi = Math.max(hi, s.x[s.x.length - 1]); } });
  (spec.nan || []).forEach(function (x) { lo = Math.min(lo, x); hi = Math.max(hi, x); });
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  if (hi === lo) { lo -= 1; hi += 1; }
  return [lo, hi];
}

function Chart(el, spec) {
  this.el = el; this.spec = spec; this.group = spec.g || "";
  var ttl = document.createElement("div"); ttl.className = "ttl"; ttl.textContent = spec.t;
  var box = document.createElement("div"); box.style.position = "relative";
  this.base = document.createElement("canvas"); this.ov = document.createElement("canvas"); this.ov.className = "ov";
  this.base.setAttribute("role", "img"); this.base.setAttribute("aria-label", spec.t);
  box.appendChild(this.base); box.appendChild(this.ov);
  el.appendChild(ttl); el.appendChild(box);
  var lg = document.createElement("div"); lg.className = "lg";
  function key(color, text, dash) {
    var sp = document.createElement("span"), sw = document.createElement("i");
    sw.style.background = dash ? "repeating-linear-gradient(90deg," + color + " 0 4px,transparent 4px 7px)" : color;
    sp.appendChild(sw); sp.appendChild(document.createTextNode(text)); lg.appendChild(sp);
  }
  spec.s.forEach(function (s) { if (s.n) key(s.c, s.n, s.d); });
  (spec.b || []).forEach(function (b) { if (b.l) key(b.c, b.l, false); });
  (spec.h || []).forEach(function (h) { if (h.l) key(h.c, h.l, true); });
  if (lg.childNodes.length) el.appendChild(lg);
  (spec.notes || []).forEach(function (n) { var d = document.createElement("div"); d.className = "nt"; d.textContent = n; el.appendChild(d); });
  this.full = fullRange(spec);
  var self = this;
  this.ov.addEventListener("mousemove", function (e) { self.move(e); });
  this.ov.addEventListener("mouseleave", function () { self.clearOv(); tip.style.display = "none"; self.drag = null; });
  this.ov.addEventListener("mousedown", function (e) { self.drag = { x0: self.px(e) }; e.preventDefault(); });
  this.ov.addEventListener("mouseup", function (e) { self.up(e); });
  this.ov.addEventListener("dblclick", function () { delete zoom[self.group]; redrawGroup(self.group); });
}
Chart.prototype.range = function () { return zoom[this.group] || this.full; };
Chart.prototype.px = function (e) { return e.clientX - this.ov.getBoundingClientRect().left; };
Chart.prototype.draw = function () {
  var spec = this.spec, W = Math.max(200, this.el.clientWidth), dpr = window.devicePixelRatio || 1;
  [this.base, this.ov].forEach(function (c) { c.width = W * dpr; c.height = H * dpr; c.style.height = H + "px"; c.style.width = W + "px"; });
  this.W = W; this.dpr = dpr;
  var ctx = this.base.getContext("2d"); ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
  var xr = this.range(), x0 = xr[0], x1 = xr[1];
  var ylo = Infinity, yhi = -Infinity, drawn = 0;
  spec.s.forEach(function (s) {
    var i = Math.max(0, lower(s.x, x0) - 1), j = Math.min(s.x.length, lower(s.x, x1) + 1);
    for (var k = i; k < j; k++) { var y = s.y[k]; if (y < ylo) ylo = y; if (y > yhi) yhi = y; }
  });
  (spec.ext || []).forEach(function (y) { if (y < ylo) ylo = y; if (y > yhi) yhi = y; });
  if (!isFinite(ylo)) { ylo = 0; yhi = 1; }
  if (yhi - ylo < 1e-12) { var pad = Math.abs(ylo) * 0.05 || 0.5; ylo -= pad; yhi += pad; }
  var m = (yhi - ylo) * 0.06; ylo -= m; yhi += m;
  this.y = [ylo, yhi];
  var pw = W - PL - PR, ph = H - PT - PB;
  function X(x) { return PL + (x - x0) / (x1 - x0) * pw; }
  function Y(y) { return PT + (1 - (y - ylo) / (yhi - ylo)) * ph; }
  this.X = X;
  ctx.font = "10px sans-serif"; ctx.fillStyle = "#555"; ctx.strokeStyle = "#e6e6e6"; ctx.lineWidth = 1;
  ctx.textAlign = "right"; ctx.textBaseline = "middle";
  ticks(ylo, yhi, 4).forEach(function (t) {
    var y = Math.round(Y(t)) + 0.5; ctx.beginPath(); ctx.moveTo(PL, y); ctx.lineTo(W - PR, y); ctx.stroke();
    ctx.fillText(fmt(t), PL - 4, y);
  });
  ctx.textAlign = "center"; ctx.textBaseline = "top";
  ticks(x0, x1, Math.max(2, Math.floor(pw / 90))).forEach(function (t) {
    var x = Math.round(X(t)) + 0.5; ctx.beginPath(); ctx.moveTo(x, PT); ctx.lineTo(x, H - PB); ctx.stroke();
    ctx.fillText(fmt(Math.round(t)), x, H - PB + 4);
  });
  ctx.save(); ctx.beginPath(); ctx.rect(PL, PT, pw, ph); ctx.clip();
  (spec.b || []).forEach(function (b) {
    ctx.fillStyle = b.c; ctx.globalAlpha = 0.13; var a = Y(b.hi), z = Y(b.lo); ctx.fillRect(PL, a, pw, z - a); ctx.globalAlpha = 1;
  });
  spec.s.forEach(function (s) {
    var i = Math.max(0, lower(s.x, x0) - 1), j = Math.min(s.x.length, lower(s.x, x1) + 1);
    ctx.strokeStyle = s.c; ctx.fillStyle = s.c; ctx.lineWidth = s.w || 1.3; ctx.setLineDash(s.d ? [5, 3] : []);
    ctx.beginPath();
    for (var k = i; k < j; k++) { var px = X(s.x[k]), py = Y(s.y[k]); if (k === i) ctx.moveTo(px, py); else ctx.lineTo(px, py); }
    ctx.stroke(); ctx.setLineDash([]);
    if (s.m || j - i === 1) for (var q = i; q < j; q++) { ctx.beginPath(); ctx.arc(X(s.x[q]), Y(s.y[q]), 2.2, 0, 6.3); ctx.fill(); }
    drawn += j - i;
  });
  (spec.h || []).forEach(function (h) {
    ctx.strokeStyle = h.c; ctx.lineWidth = 1.2; ctx.setLineDash([6, 4]);
    var y = Y(h.y); ctx.beginPath(); ctx.moveTo(PL, y); ctx.lineTo(W - PR, y); ctx.stroke(); ctx.setLineDash([]);
  });
  ctx.strokeStyle = "#d62728"; ctx.lineWidth = 1.3;
  (spec.nan || []).forEach(function (x) {
    var px = X(x), py = PT + 6; ctx.beginPath(); ctx.moveTo(px - 3, py - 3); ctx.lineTo(px + 3, py + 3);
    ctx.moveTo(px + 3, py - 3); ctx.lineTo(px - 3, py + 3); ctx.stroke();
  });
  ctx.restore();
  // onsets: a dashed line and the finding's name at the top, names stacked so none overlaps another
  var rows = [];
  ctx.font = "10px sans-serif"; ctx.textAlign = "left"; ctx.textBaseline = "top";
  (spec.v || []).forEach(function (v) {
    if (v.x < x0 || v.x > x1) return;
    var px = Math.round(X(v.x)) + 0.5;
    ctx.strokeStyle = v.c; ctx.lineWidth = 1.2; ctx.setLineDash([4, 3]);
    ctx.beginPath(); ctx.moveTo(px, PT); ctx.lineTo(px, H - PB); ctx.stroke(); ctx.setLineDash([]);
    var w = ctx.measureText(v.l).width + 6, left = px + 2;
    if (left + w > W - PR) left = px - 2 - w;
    var r = 0; while (rows[r] !== undefined && rows[r] > left - 2) r++;
    rows[r] = left + w;
    var top = PT + 2 + r * 13;
    ctx.fillStyle = "rgba(255,255,255,.85)"; ctx.fillRect(left, top - 1, w, 12);
    ctx.fillStyle = v.c; ctx.fillText(v.l, left + 3, top);
  });
  ctx.strokeStyle = "#999"; ctx.strokeRect(PL + 0.5, PT + 0.5, pw - 1, ph - 1);
  this.el.setAttribute("data-drawn", String(drawn));
};
Chart.prototype.clearOv = function () {
  var c = this.ov.getContext("2d"); c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0); c.clearRect(0, 0, this.W, H); return c;
};
Chart.prototype.move = function (e) {
  var px = this.px(e), c = this.clearOv(), xr = this.range(), pw = this.W - PL - PR;
  if (this.drag) {
    c.fillStyle = "rgba(31,119,180,.15)"; c.fillRect(Math.min(this.drag.x0, px), PT, Math.abs(px - this.drag.x0), H - PT - PB);
  }
  if (px < PL || px > this.W - PR) { tip.style.display = "none"; return; }
  var x = xr[0] + (px - PL) / pw * (xr[1] - xr[0]), lines = [], best = null, ylo = this.y[0], yhi = this.y[1];
  this.spec.s.forEach(function (s) {
    if (!s.x.length) return;
    var i = lower(s.x, x);
    if (i >= s.x.length || (i > 0 && x - s.x[i - 1] < s.x[i] - x)) i -= 1;
    if (best === null || Math.abs(s.x[i] - x) < Math.abs(best - x)) best = s.x[i];
    lines.push([s, i]);
  });
  if (best === null) return;
  var self = this, text = (DATA.words.step || "step") + " " + best;
  c.strokeStyle = "#888"; c.lineWidth = 1; c.beginPath(); c.moveTo(this.X(best), PT); c.lineTo(this.X(best), H - PB); c.stroke();
  lines.forEach(function (p) {
    var s = p[0], i = p[1];
    if (s.x[i] !== best && lines.length > 1) return;
    text += "\n" + (s.n || self.spec.t) + ": " + fmt(s.y[i]) + (self.spec.u || "");
    c.fillStyle = s.c; c.beginPath();
    c.arc(self.X(s.x[i]), PT + (1 - (s.y[i] - ylo) / (yhi - ylo)) * (H - PT - PB), 3, 0, 6.3); c.fill();
  });
  tip.textContent = text; tip.style.display = "block";
  var tx = e.clientX + 14, ty = e.clientY + 12;
  if (tx + tip.offsetWidth > window.innerWidth) tx = e.clientX - tip.offsetWidth - 10;
  tip.style.left = tx + "px"; tip.style.top = ty + "px";
};
Chart.prototype.up = function (e) {
  if (!this.drag) return;
  var a = this.drag.x0, b = this.px(e), xr = this.range(), pw = this.W - PL - PR;
  this.drag = null;
  if (Math.abs(b - a) < 5) { this.clearOv(); return; }
  function X(p) { return xr[0] + (Math.min(Math.max(p, PL), PL + pw) - PL) / pw * (xr[1] - xr[0]); }
  var lo = X(Math.min(a, b)), hi = X(Math.max(a, b));
  if (hi - lo < 1) hi = lo + 1;
  zoom[this.group] = [lo, hi];
  redrawGroup(this.group);
};
function redrawGroup(g) { charts.forEach(function (c) { if (c.group === g) { c.draw(); c.clearOv(); } }); }
function drawAll() { charts.forEach(function (c) { c.draw(); }); }
var nodes = document.querySelectorAll(".rlv-chart[data-chart]");
for (var i = 0; i < nodes.length; i++) {
  var spec = DATA.charts[+nodes[i].getAttribute("data-chart")];
  if (spec) charts.push(new Chart(nodes[i], spec));
}
drawAll();
var timer = null;
window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(drawAll, 120); });
document.documentElement.setAttribute("data-rlv-ready", String(charts.length));
})();
"""
