/* lexeval's HTML page: draws the summary table, the pair matrix, the
   per-query differences and the reports from the JSON in #data. Plain
   browser JavaScript, no library, no network. */
"use strict";

(function () {
  const errors = [];

  function reportError(message) {
    errors.push(String(message));
    document.body.dataset.errors = errors.join(" | ");
    const box = document.getElementById("errors");
    if (box) {
      box.hidden = false;
      box.textContent = "Script error: " + errors.join("; ");
    }
  }

  window.addEventListener("error", (event) => reportError(event.message));

  const SVG = "http://www.w3.org/2000/svg";

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      node.setAttribute(key, value);
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function svgElement(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      node.setAttribute(key, value);
    }
    return node;
  }

  /* base64 of little-endian float32 or int32 values */
  function decode(text, Kind) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) {
      bytes[i] = binary.charCodeAt(i);
    }
    return new Kind(bytes.buffer);
  }

  const floats = (text) => decode(text, Float32Array);
  const integers = (text) => decode(text, Int32Array);

  function fixed(value, digits) {
    return Number.isFinite(value) ? value.toFixed(digits === undefined ? 4 : digits) : "";
  }

  function pValue(value) {
    if (!Number.isFinite(value)) {
      return "not tested";
    }
    return value < 0.001 ? value.toExponential(3) : value.toPrecision(4);
  }

  /* the index of pair (a, b), a < b, among all pairs in command-line order */
  function pairIndex(a, b, runs) {
    const low = Math.min(a, b);
    const high = Math.max(a, b);
    return low * runs - (low * (low + 1)) / 2 + (high - low - 1);
  }

  function option(select, value, label) {
    select.appendChild(element("option", { value: String(value) }, label));
  }

  /* ------------------------------------------------------------ summary */

  function summaryTable(data) {
    const summary = data.summary;
    const table = document.getElementById("summary-table");
    const head = element("thead");
    const header = element("tr");
    const columns = ["run"].concat(summary.columns);
    columns.forEach((name, column) => {
      const cell = element("th", { scope: "col", "data-column": String(column) }, name);
      cell.addEventListener("click", () => sortBy(column));
      header.appendChild(cell);
    });
    head.appendChild(header);
    table.appendChild(head);
    const body = element("tbody");
    data.runs.forEach((run, index) => {
      const row = element("tr", { "data-run": String(index) });
      if (summary.baseline === index) {
        row.className = "baseline";
      }
      const name = summary.baseline === index ? run + " (baseline)" : run;
      row.appendChild(element("td", {}, name));
      summary.columns.forEach((measure) => {
        const info = summary.cells[measure][index];
        const cell = element("td", { "data-value": info.text }, info.text);
        if (info.best) {
          cell.className = "best";
        }
        const mark = significanceMark(info, index, summary.baseline);
        if (mark) {
          cell.appendChild(element("span", { class: "mark " + mark.kind, title: mark.title }, mark.text));
        }
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
    table.appendChild(body);
    document.getElementById("summary-caption").textContent = summary.caption;

    let sorted = { column: -1, ascending: true };

    function sortBy(column) {
      const ascending = sorted.column === column ? !sorted.ascending : column === 0;
      sorted = { column, ascending };
      const rows = Array.from(body.rows);
      const key = (row) => {
        const text = column === 0 ? row.cells[0].textContent : row.cells[column].dataset.value;
        const number = Number(text);
        return text !== "" && Number.isFinite(number) ? number : text;
      };
      rows.sort((x, y) => {
        const a = key(x);
        const b = key(y);
        const order = typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
        return ascending ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
      Array.from(header.cells).forEach((cell, index) => {
        if (index === column) {
          cell.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        } else {
          cell.removeAttribute("aria-sort");
        }
      });
    }
  }

  function significanceMark(info, index, baseline) {
    if (baseline !== null && baseline !== undefined) {
      if (index === baseline) {
        return null;
      }
      if (info.better.includes(baseline)) {
        return { kind: "up", text: "\u25B2", title: "significantly better than the baseline" };
      }
      if (info.worse.includes(baseline)) {
        return { kind: "down", text: "\u25BC", title: "significantly worse than the baseline" };
      }
      return null;
    }
    const parts = [];
    if (info.better.length) {
      parts.push("\u25B2" + info.better.length);
    }
    if (info.worse.length) {
      parts.push("\u25BC" + info.worse.length);
    }
    if (!parts.length) {
      return null;
    }
    return {
      kind: info.better.length >= info.worse.length ? "up" : "down",
      text: parts.join(" "),
      title: `significantly better than ${info.better.length} runs, worse than ${info.worse.length}`,
    };
  }

  /* ------------------------------------------------------------ pairs */

  function perQuery(data, name) {
    const cache = perQuery.cache || (perQuery.cache = {});
    if (!cache[name]) {
      cache[name] = data.measures[name].values.map(floats);
    }
    return cache[name];
  }

  function tested(entry, key) {
    return entry[key] ? floats(entry[key]) : null;
  }

  /* What one cell of the matrix says: row run a against column run b. */
  function pairFacts(data, name, a, b) {
    const runs = data.runs.length;
    const at = pairIndex(a, b, runs);
    const sign = a < b ? 1 : -1;
    let facts;
    if (data.measures[name]) {
      const entry = data.measures[name];
      const values = perQuery(data, name);
      let win = 0;
      let loss = 0;
      let tie = 0;
      for (let q = 0; q < values[a].length; q += 1) {
        const difference = values[a][q] - values[b][q];
        if (difference > 0) {
          win += 1;
        } else if (difference < 0) {
          loss += 1;
        } else {
          tie += 1;
        }
      }
      facts = { mean: entry.means[a] - entry.means[b], win, loss, tie, entry };
    } else {
      const entry = data.preferences[name];
      const decoded = entry.decoded || (entry.decoded = {
        mean: floats(entry.mean), win: integers(entry.win), loss: integers(entry.loss), tie: integers(entry.tie),
      });
      facts = {
        mean: sign * decoded.mean[at],
        win: sign > 0 ? decoded.win[at] : decoded.loss[at],
        loss: sign > 0 ? decoded.loss[at] : decoded.win[at],
        tie: decoded.tie[at],
        entry,
      };
    }
    const entry = facts.entry;
    entry.pDecoded = entry.pDecoded || tested(entry, "p");
    facts.p = entry.pDecoded ? entry.pDecoded[at] : NaN;
    if (data.ci && entry.ci_low) {
      entry.lowDecoded = entry.lowDecoded || floats(entry.ci_low);
      entry.highDecoded = entry.highDecoded || floats(entry.ci_high);
      const low = entry.lowDecoded[at];
      const high = entry.highDecoded[at];
      facts.interval = sign > 0 ? [low, high] : [-high, -low];
    }
    return facts;
  }

  function matrixNames(data) {
    return Object.keys(data.preferences).concat(Object.keys(data.measures));
  }

  function matrix(data) {
    const names = matrixNames(data);
    if (data.runs.length < 2 || !names.length) {
      return;
    }
    document.getElementById("pairs").hidden = false;
    const select = document.getElementById("matrix-measure");
    names.forEach((name) => option(select, name, name));
    select.addEventListener("change", () => drawMatrix(data, select.value));
    drawMatrix(data, names[0]);
  }

  function drawMatrix(data, name) {
    const grid = document.getElementById("matrix-grid");
    grid.textContent = "";
    const runs = data.runs;
    const withText = runs.length <= 40;
    const table = element("table", { class: "matrix" });
    const head = element("tr");
    head.appendChild(element("th", {}, ""));
    runs.forEach((run) => head.appendChild(element("th", { class: "column", scope: "col" }, run)));
    table.appendChild(head);
    runs.forEach((run, a) => {
      const row = element("tr");
      row.appendChild(element("th", { scope: "row" }, run));
      runs.forEach((other, b) => {
        const cell = element("td");
        if (a === b) {
          cell.className = "diagonal";
        } else {
          const facts = pairFacts(data, name, a, b);
          const significant = facts.p < data.alpha;
          if (facts.mean > 0) {
            cell.className = significant ? "better-significant" : "better";
          } else if (facts.mean < 0) {
            cell.className = significant ? "worse-significant" : "worse";
          } else {
            cell.className = "even";
          }
          if (withText) {
            cell.textContent = fixed(facts.mean, 2);
          }
          cell.dataset.a = String(a);
          cell.dataset.b = String(b);
        }
        row.appendChild(cell);
      });
      table.appendChild(row);
    });
    table.addEventListener("mousemove", (event) => {
      const cell = event.target.closest("td");
      if (!cell || cell.dataset.a === undefined) {
        hideTip();
        return;
      }
      const a = Number(cell.dataset.a);
      const b = Number(cell.dataset.b);
      const facts = pairFacts(data, name, a, b);
      if (!Number.isFinite(facts.mean)) {
        showTip(`${runs[a]} vs ${runs[b]} on ${name}\nnot compared: with --baseline, each run is compared ` +
          "with the baseline only", event);
        return;
      }
      const lines = [
        `${runs[a]} vs ${runs[b]} on ${name}`,
        `mean ${data.preferences[name] ? "preference" : "difference"}: ${fixed(facts.mean)}`,
        `wins ${facts.win}, losses ${facts.loss}, ties ${facts.tie}`,
        `p = ${pValue(facts.p)}`,
      ];
      if (facts.interval) {
        lines.push(`${Math.round(data.confidence * 100)}% interval: [${fixed(facts.interval[0])}, ` +
          `${fixed(facts.interval[1])}]`);
      }
      showTip(lines.join("\n"), event);
    });
    table.addEventListener("mouseleave", hideTip);
    table.addEventListener("click", (event) => {
      const cell = event.target.closest("td");
      if (cell && cell.dataset.a !== undefined) {
        choosePair(data, Number(cell.dataset.a), Number(cell.dataset.b), name);
      }
    });
    grid.appendChild(table);
    const tested = data.test === "none" ? "no tests (--test none)" :
      `significant at alpha = ${data.alpha} (dark): see the summary's caption for the test and correction`;
    document.getElementById("matrix-caption").textContent =
      `Row run against column run: mean ${data.preferences[name] ? "preference" : "difference"} ` +
      `over the ${data.queries.length} compared queries; green: the row run is better, red: worse, ${tested}. ` +
      "Hover a cell for wins, losses, ties and p; click it to see its queries below.";
  }

  function showTip(text, event) {
    const tip = document.getElementById("tooltip");
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = `${Math.min(event.clientX + 14, window.innerWidth - 260)}px`;
    tip.style.top = `${event.clientY + 14}px`;
  }

  function hideTip() {
    document.getElementById("tooltip").hidden = true;
  }

  /* ------------------------------------------------------------ per query */

  function bestTwo(data) {
    const summary = data.summary;
    const column = summary.columns.find((name) => data.measures[name] || name.endsWith("_score"));
    if (!column) {
      return [0, 1];
    }
    const order = data.runs.map((_, index) => index);
    order.sort((x, y) => Number(summary.cells[column][y].text) - Number(summary.cells[column][x].text));
    return [order[0], order[1]];
  }

  function perQueryView(data) {
    if (data.runs.length < 2 || !matrixNames(data).length || !data.queries.length) {
      return;
    }
    document.getElementById("per-query").hidden = false;
    const selectA = document.getElementById("pq-a");
    const selectB = document.getElementById("pq-b");
    const selectMeasure = document.getElementById("pq-measure");
    data.runs.forEach((run, index) => {
      option(selectA, index, run);
      option(selectB, index, run);
    });
    matrixNames(data).forEach((name) => option(selectMeasure, name, name));
    // the chart TREC participants know: a metric's per-topic differences of the two best runs
    selectMeasure.value = Object.keys(data.measures)[0] || matrixNames(data)[0];
    const [a, b] = bestTwo(data);
    selectA.value = String(a);
    selectB.value = String(b);
    const redraw = () => drawPerQuery(data, Number(selectA.value), Number(selectB.value), selectMeasure.value);
    [selectA, selectB, selectMeasure].forEach((select) => select.addEventListener("change", redraw));
    redraw();
  }

  function choosePair(data, a, b, name) {
    document.getElementById("pq-a").value = String(a);
    document.getElementById("pq-b").value = String(b);
    document.getElementById("pq-measure").value = name;
    drawPerQuery(data, a, b, name);
    document.getElementById("per-query").scrollIntoView({ behavior: "smooth" });
  }

  function differences(data, a, b, name) {
    if (data.measures[name]) {
      const values = perQuery(data, name);
      return Array.from(values[a], (value, q) => value - values[b][q]);
    }
    const entry = data.preferences[name];
    const stored = entry.per_query[String(pairIndex(a, b, data.runs.length))];
    if (stored === undefined) {
      return null;
    }
    const sign = a < b ? 1 : -1;
    return Array.from(floats(stored), (value) => sign * value);
  }

  function drawPerQuery(data, a, b, name) {
    const chart = document.getElementById("pq-chart");
    const caption = document.getElementById("pq-caption");
    chart.textContent = "";
    if (a === b) {
      caption.textContent = "Choose two different runs.";
      return;
    }
    const values = differences(data, a, b, name);
    if (values === null) {
      caption.textContent = `The page has no per-query values of ${name} for this pair: with --baseline it keeps ` +
        "the baseline's pairs, and with many runs the best run's pairs only.";
      return;
    }
    const order = values.map((_, q) => q).sort((x, y) => values[y] - values[x]);
    const width = Math.max(480, Math.min(1100, order.length * 6 + 80));
    const height = 240;
    const top = 12;
    const bottom = 24;
    const left = 48;
    const largest = Math.max(1e-12, ...values.map(Math.abs));
    const scale = (height - top - bottom) / 2 / largest;
    const zero = top + (height - top - bottom) / 2;
    const step = (width - left - 10) / order.length;
    const svg = svgElement("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": `per-query differences of ${data.runs[a]} and ${data.runs[b]} on ${name}` });
    svg.appendChild(svgElement("line", { class: "axis", x1: left, x2: width - 10, y1: zero, y2: zero }));
    [largest, -largest].forEach((value) => {
      const label = svgElement("text", { x: left - 6, y: zero - value * scale + 4, "text-anchor": "end" });
      label.textContent = fixed(value, 3);
      svg.appendChild(label);
    });
    let wins = 0;
    let losses = 0;
    let ties = 0;
    order.forEach((q, position) => {
      const value = values[q];
      const x = left + position * step;
      let shape;
      if (value === 0) {
        ties += 1;
        shape = svgElement("circle", { class: "tie", cx: x + step / 2, cy: zero, r: Math.max(1.5, Math.min(3, step / 2)) });
      } else {
        if (value > 0) {
          wins += 1;
        } else {
          losses += 1;
        }
        const y = value > 0 ? zero - value * scale : zero;
        shape = svgElement("rect", { class: value > 0 ? "bar-better" : "bar-worse", x, y,
          width: Math.max(1, step - 1), height: Math.max(1, Math.abs(value) * scale) });
      }
      const title = svgElement("title");
      title.textContent = `query ${data.queries[q]}: ${fixed(value)}`;
      shape.appendChild(title);
      svg.appendChild(shape);
    });
    chart.appendChild(svg);
    caption.textContent = `${data.runs[a]} minus ${data.runs[b]} on ${name}, per compared query, sorted: ` +
      `${wins} wins (green), ${losses} losses (red), ${ties} ties (grey dots).`;
  }

  /* ------------------------------------------------------------ reports */

  function reports(data) {
    if (!data.reports.length) {
      return;
    }
    document.getElementById("reports").hidden = false;
    const list = document.getElementById("report-list");
    const byReport = new Map();
    data.reports.forEach((group) => {
      if (!byReport.has(group.report)) {
        byReport.set(group.report, []);
      }
      byReport.get(group.report).push(group);
    });
    byReport.forEach((groups, report) => {
      list.appendChild(element("h3", {}, report));
      const compact = groups.filter((group) => group.rows.length <= 12);
      const series = groups.filter((group) => group.rows.length > 12);
      if (compact.length) {
        const parameters = [];
        compact.forEach((group) => group.rows.forEach(([parameter]) => {
          if (!parameters.includes(parameter)) {
            parameters.push(parameter);
          }
        }));
        const table = element("table", { class: "report" });
        const head = element("tr");
        head.appendChild(element("th", {}, "measure"));
        parameters.forEach((parameter) => head.appendChild(element("th", {}, parameter)));
        table.appendChild(head);
        compact.forEach((group) => {
          const row = element("tr");
          row.appendChild(element("td", {}, group.measure));
          const values = new Map(group.rows);
          parameters.forEach((parameter) => row.appendChild(element("td", {},
            values.has(parameter) ? fixed(values.get(parameter)) : "")));
          table.appendChild(row);
        });
        const scroll = element("div", { class: "scroll" });
        scroll.appendChild(table);
        list.appendChild(scroll);
      }
      series.forEach((group) => list.appendChild(seriesChart(group)));
      if (report === "degradation") {
        ["_agreement_mean", "_ties_mean"].forEach((suffix) => {
          const lines = groups.filter((group) => group.measure.endsWith(suffix));
          if (lines.length) {
            list.appendChild(degradationChart(lines, suffix));
          }
        });
      }
    });
  }

  /* every measure's curve over the fractions of labels kept (percentages) */
  function degradationChart(groups, suffix) {
    const figure = element("figure");
    const width = 560;
    const height = 220;
    const left = 44;
    const right = 150;
    const bottom = 24;
    const fractions = groups[0].rows.map(([parameter]) => Number(parameter));
    const x = (index) => left + (index * (width - left - right)) / Math.max(1, fractions.length - 1);
    const y = (value) => height - bottom - (value / 100) * (height - bottom - 10);
    const svg = svgElement("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": `degradation: ${suffix.replace(/_/g, " ").trim()} by fraction of labels kept` });
    svg.appendChild(svgElement("line", { class: "axis", x1: left, x2: width - right, y1: height - bottom,
      y2: height - bottom }));
    fractions.forEach((fraction, index) => {
      const label = svgElement("text", { x: x(index), y: height - 6, "text-anchor": "middle" });
      label.textContent = String(fraction);
      svg.appendChild(label);
    });
    [0, 50, 100].forEach((value) => {
      const label = svgElement("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end" });
      label.textContent = String(value);
      svg.appendChild(label);
    });
    const colours = ["#3465a4", "#c0362c", "#1a7f37", "#8f5902", "#75507b", "#ce5c00", "#204a87", "#4e9a06"];
    groups.slice(0, 8).forEach((group, index) => {
      const points = group.rows.map(([, value], at) => `${x(at)},${y(value)}`).join(" ");
      svg.appendChild(svgElement("polyline", { class: "series", points, stroke: colours[index] }));
      const name = svgElement("text", { x: width - right + 8, y: 16 + index * 14, style: `fill: ${colours[index]}` });
      name.textContent = group.measure.slice(0, -suffix.length);
      svg.appendChild(name);
    });
    figure.appendChild(svg);
    figure.appendChild(element("figcaption", { class: "caption" },
      `${suffix.slice(1).replace("_", " ")} (%) by fraction of relevant labels kept` +
      (groups.length > 8 ? ` (the first 8 of ${groups.length} measures)` : "")));
    return figure;
  }

  function seriesChart(group) {
    const figure = element("figure");
    const width = 520;
    const height = 180;
    const left = 44;
    const bottom = 22;
    const values = group.rows.map(([, value]) => value);
    const largest = Math.max(1e-12, ...values);
    const svg = svgElement("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": `${group.report}: ${group.measure}` });
    svg.appendChild(svgElement("line", { class: "axis", x1: left, x2: width - 8, y1: height - bottom,
      y2: height - bottom }));
    const x = (index) => left + (index * (width - left - 12)) / Math.max(1, values.length - 1);
    const y = (value) => height - bottom - (value / largest) * (height - bottom - 10);
    const points = values.map((value, index) => `${x(index)},${y(value)}`).join(" ");
    svg.appendChild(svgElement("polyline", { class: "series", points, stroke: "#3465a4" }));
    const label = svgElement("text", { x: left - 6, y: y(largest) + 4, "text-anchor": "end" });
    label.textContent = fixed(largest, 1);
    svg.appendChild(label);
    const first = svgElement("text", { x: left, y: height - 6 });
    first.textContent = String(group.rows[0][0]);
    svg.appendChild(first);
    const last = svgElement("text", { x: width - 8, y: height - 6, "text-anchor": "end" });
    last.textContent = String(group.rows[group.rows.length - 1][0]);
    svg.appendChild(last);
    figure.appendChild(svg);
    figure.appendChild(element("figcaption", { class: "caption" },
      `${group.measure}: ${group.rows.length} values (${group.rows[0][0]} to ${group.rows[group.rows.length - 1][0]})`));
    return figure;
  }

  /* ------------------------------------------------------------ the page */

  function main() {
    const data = JSON.parse(document.getElementById("data").textContent);
    document.getElementById("version").textContent = data.version;
    document.getElementById("about").textContent =
      `${data.runs.length} runs; ${data.num_queries} queries, ${data.queries.length} of them compared ` +
      "(with a relevant document).";
    summaryTable(data);
    matrix(data);
    perQueryView(data);
    reports(data);
    document.body.dataset.ready = "true";
  }

  try {
    main();
  } catch (error) {
    reportError(error && error.stack ? error.stack : error);
  }
}());
