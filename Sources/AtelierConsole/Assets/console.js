(function () {
  "use strict";
  var main = document.querySelector("main[data-live]");
  if (!main || !window.EventSource) return;
  var view = main.getAttribute("data-live");
  var status = document.getElementById("live-status");
  var say = function (text) { if (status) status.textContent = text; };
  var fromHTML = function (html) { var t = document.createElement("template"); t.innerHTML = html.trim(); return t.content.firstElementChild; };
  var stamp = function () { return new Date().toISOString().slice(11, 19) + " UTC"; };
  var table = document.getElementById("jobs-table");
  var body = table && table.tBodies[0];
  var firstPage = table && table.getAttribute("data-first-page") === "true";
  var holder = document.querySelector("[data-job]");
  // Each (re)connection starts with the rows as they stand: what changed meanwhile is not lost.
  var show = view === "jobs" && firstPage ? "newest" : view === "job" && holder ? holder.dataset.job : "";
  var source = new EventSource("/admin/live" + (show ? "?show=" + encodeURIComponent(show) : ""));
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
    var filter = function (name) { var input = document.querySelector(".filters [name='" + name + "']"); return input ? input.value.trim() : ""; };
    var matches = function (row) {
      var kind = filter("kind"), state = filter("state"), owner = filter("owner");
      return (!kind || row.dataset.kind === kind) && (!state || row.dataset.state === state) && (!owner || row.dataset.owner === owner) && !filter("since");
    };
    // Where a row the page lacks goes: before the first older row (ids are UUIDv7, newest
    // first, and their text sorts as they do), at the end of a page not yet full, or nowhere
    // (undefined) when it is older than a full page's last row — it belongs to an older page.
    // A job may be new in any state (a worker can finish it before the page hears of it), and
    // one whose insert committed late can land below rows already shown.
    var place = function (row) {
      for (var j = 0; j < body.rows.length; j++) if (body.rows[j].dataset.id < row.dataset.id) return body.rows[j];
      return body.rows.length < 50 ? null : undefined;
    };
    source.addEventListener("jobs", function (event) {
      if (!body) return;
      var rows = JSON.parse(event.data), added = 0, changed = 0;
      for (var i = 0; i < rows.length; i++) {
        var row = fromHTML(rows[i].html);
        var existing = document.getElementById(row.id);
        if (existing) {
          // (Compared without its classes: a row put in live is marked "fresh".)
          if (existing.dataset.state !== row.dataset.state || existing.innerHTML !== row.innerHTML) { existing.replaceWith(row); changed++; }
        } else if (firstPage && matches(row)) {
          var before = place(row);
          if (before === undefined) continue;
          row.classList.add("fresh");
          body.insertBefore(row, before);
          added++;
        }
      }
      while (body.rows.length > 50) body.deleteRow(body.rows.length - 1);
      if (added || changed) say("Live · " + added + " new, " + changed + " updated at " + stamp());
    });
  }

  if (view === "job") {
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