/// The console's only script, served from the binary at `/admin/assets/console.js`: it keeps the
/// open page live from `/admin/live` (Server-Sent Events). The overview swaps in the content each
/// `overview` frame carries; the job list replaces rows that changed and, on its first page, adds
/// new jobs that match its filters at the top (50 rows at most); a job's page updates its
/// progress and reloads when its state changes. Every page works without it.
enum Script {
    static let js = #"""
(function () {
  "use strict";
  var main = document.querySelector("main[data-live]");
  if (!main || !window.EventSource) return;
  var view = main.getAttribute("data-live");
  var status = document.getElementById("live-status");
  var say = function (text) { if (status) status.textContent = text; };
  var fromHTML = function (html) { var t = document.createElement("template"); t.innerHTML = html.trim(); return t.content.firstElementChild; };
  var stamp = function () { return new Date().toISOString().slice(11, 19) + " UTC"; };
  var source = new EventSource("/admin/live");
  source.onopen = function () { say("Live."); };
  source.onerror = function () { say("Live updates interrupted; reconnecting…"); };

  if (view === "overview") {
    source.addEventListener("overview", function (event) {
      var target = document.getElementById("overview");
      if (!target) return;
      target.innerHTML = JSON.parse(event.data).html;
      say("Live · updated " + stamp());
    });
  }

  if (view === "jobs") {
    var table = document.getElementById("jobs-table");
    var body = table && table.tBodies[0];
    var firstPage = table && table.getAttribute("data-first-page") === "true";
    var filter = function (name) { var input = document.querySelector(".filters [name='" + name + "']"); return input ? input.value.trim() : ""; };
    var matches = function (row) {
      var kind = filter("kind"), state = filter("state"), owner = filter("owner");
      return (!kind || row.dataset.kind === kind) && (!state || row.dataset.state === state) && (!owner || row.dataset.owner === owner) && !filter("since");
    };
    source.addEventListener("jobs", function (event) {
      if (!body) return;
      var rows = JSON.parse(event.data), added = 0, changed = 0;
      for (var i = rows.length - 1; i >= 0; i--) {
        var row = fromHTML(rows[i].html);
        var existing = document.getElementById(row.id);
        if (existing) {
          if (existing.dataset.state !== row.dataset.state || existing.outerHTML !== row.outerHTML) { existing.replaceWith(row); changed++; }
        } else if (firstPage && matches(row) && rows[i].state === "queued") {
          row.classList.add("fresh");
          body.insertBefore(row, body.firstChild);
          added++;
        }
      }
      while (body.rows.length > 50) body.deleteRow(body.rows.length - 1);
      if (added || changed) say("Live · " + added + " new, " + changed + " updated at " + stamp());
    });
  }

  if (view === "job") {
    var holder = document.querySelector("[data-job]");
    source.addEventListener("jobs", function (event) {
      if (!holder) return;
      JSON.parse(event.data).forEach(function (row) {
        if (row.id !== holder.dataset.job) return;
        if (row.state !== holder.dataset.state) { source.close(); window.location.reload(); return; }
        var bar = holder.querySelector("progress");
        if (bar) { bar.value = row.progress; bar.textContent = row.progress + "%"; }
        say("Live · updated " + stamp());
      });
    });
  }
})();
"""#
}
