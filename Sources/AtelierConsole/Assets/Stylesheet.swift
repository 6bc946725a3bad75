/// The console's stylesheet, served from the binary at `/admin/assets/console.css` (no build
/// step, nothing from a CDN). Colours meet WCAG AA contrast on their backgrounds; state badges
/// repeat their state in words; focus is always visible; tables scroll sideways on a phone.
enum Stylesheet {
    static let css = #"""
:root { --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --panel: #f6f8fa; --line: #d0d7de; --link: #0550ae;
  --ok: #116329; --ok-bg: #dafbe1; --bad: #a40e26; --bad-bg: #ffebe9; --warn: #7d4e00; --warn-bg: #fff8c5;
  --run: #0550ae; --run-bg: #ddf4ff; --wait: #57606a; --wait-bg: #eaeef2; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: .5rem; z-index: 10; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; padding: .6rem 1rem; background: #24292f; }
header a, header button { color: #ffffff; }
.brand { font-weight: 700; text-decoration: none; }
nav[aria-label="Console"] { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; flex: 1; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.signout { margin-left: auto; }
.signout button { background: transparent; border: 1px solid #8c959f; border-radius: 6px; padding: .25rem .7rem; cursor: pointer; }
main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: .2rem 0 .6rem; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }
.muted, .live-status { color: var(--muted); }
.live-status { min-height: 1.2em; margin: 0 0 .5rem; font-size: .9rem; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: .6rem; margin: 0; }
.tile { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; }
.tile dt { color: var(--muted); font-size: .85rem; }
.tile dd { margin: 0; font-size: 1.5rem; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 1rem; margin-top: 1rem; }
.chart { margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .6rem; }
.chart figcaption { font-weight: 600; margin-bottom: .3rem; }
.chart svg { width: 100%; height: 120px; display: block; background: var(--bg); }
.bar.good { fill: #2da44e; } .bar.bad { fill: #cf222e; }
.legend { margin: .3rem 0 0; font-size: .85rem; color: var(--muted); }
.key { display: inline-block; width: .8em; height: .8em; margin: 0 .25em 0 .5em; vertical-align: -1px; }
.key.good { background: #2da44e; } .key.bad { background: #cf222e; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: .93rem; }
caption { text-align: left; color: var(--muted); padding: .3rem 0; }
th, td { text-align: left; padding: .4rem .55rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--panel); white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.mono, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88rem; }
pre.json { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .7rem; overflow-x: auto; max-height: 28rem; }
.badge { display: inline-block; border-radius: 999px; padding: 0 .55rem; font-size: .85rem; font-weight: 600; white-space: nowrap; }
.badge.succeeded, .badge.live { color: var(--ok); background: var(--ok-bg); }
.badge.failed, .badge.gone { color: var(--bad); background: var(--bad-bg); }
.badge.cancelled, .badge.queued { color: var(--wait); background: var(--wait-bg); }
.badge.running { color: var(--run); background: var(--run-bg); }
.badge.paused, .badge.stuck { color: var(--warn); background: var(--warn-bg); }
tr.worker-stuck th, tr.worker-gone th { text-decoration: underline wavy; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: .2rem 1.2rem; margin: 0; }
.facts div { display: flex; gap: .6rem; border-bottom: 1px solid var(--line); padding: .3rem 0; }
.facts dt { color: var(--muted); min-width: 8.5rem; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.error, .error-text { color: var(--bad); }
p.error { background: var(--bad-bg); border-radius: 6px; padding: .6rem .8rem; }
.notice { background: var(--ok-bg); color: var(--ok); border-radius: 6px; padding: .6rem .8rem; }
.actions { display: flex; flex-wrap: wrap; gap: .6rem; margin: 1rem 0; }
.button, button { display: inline-block; font: inherit; border: 1px solid var(--line); background: var(--panel); color: var(--fg);
  border-radius: 6px; padding: .4rem .9rem; text-decoration: none; cursor: pointer; min-height: 2.25rem; }
.button.cancel, button.cancel, .button.purge, button.purge { color: var(--bad); border-color: #ff8182; }
.filters { display: flex; flex-wrap: wrap; align-items: end; gap: .6rem 1rem; margin-bottom: .8rem; }
.filters label, .signin label { display: flex; flex-direction: column; font-size: .88rem; color: var(--muted); }
input, select { font: inherit; color: var(--fg); padding: .35rem .5rem; border: 1px solid #8c959f; border-radius: 6px; min-height: 2.25rem; }
.signin { display: grid; gap: .4rem; max-width: 22rem; }
.signin button { margin-top: .6rem; }
.pager { display: flex; gap: 1rem; margin: .8rem 0; }
.timeline { padding-left: 1.2rem; } .timeline li { margin: .2rem 0; overflow-wrap: anywhere; }
img.preview { max-width: 100%; max-height: 420px; border: 1px solid var(--line); border-radius: 6px; }
progress { vertical-align: middle; width: 7rem; max-width: 60%; }
tr.fresh { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: var(--warn-bg); } to { background: transparent; } }
@media (prefers-reduced-motion: reduce) { tr.fresh { animation: none; } }
@media (max-width: 600px) { main { padding: .6rem; } header { padding: .5rem .6rem; gap: .4rem .8rem; } nav ul { gap: .2rem .8rem; } .tile dd { font-size: 1.2rem; } th, td { padding: .35rem .4rem; } }
"""#
}
