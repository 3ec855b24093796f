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
  // a printed page shows what folded sections hold
  window.addEventListener("beforeprint", () => document.querySelectorAll("details").forEach((part) => {
    part.open = true;
  }));

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
    if (!Number.isFinite(value)) {
      return "";
    }
    const text = value.toFixed(digits === undefined ? 4 : digits);
    return /^-[0.]+$/.test(text) ? text.slice(1) : text;    /* a difference of nothing: 0.0000, not -0.0000 */
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

  /* The columns shown at first: every measure when there are few, else a readable set (trec_eval's single
     numbers, P@10, nDCG@10, the preference scores); counts wait in the picker. */
  function initiallyShown(summary) {
    const measures = summary.columns.filter((name) => !summary.groups[name].startsWith("counts"));
    if (measures.length <= 12) {
      return new Set(measures);
    }
    return new Set(measures.filter((name) => summary.groups[name].endsWith(" shown")));
  }

  const SUMMARY_ROWS = 100;       // rows drawn at first; the rest on demand (a thousand runs stay quick)

  /* The summary: drawn from the data each time the columns, the order or the filter change, only the shown
     columns and at first only the first SUMMARY_ROWS runs. */
  function summaryTable(data) {
    const summary = data.summary;
    const table = document.getElementById("summary-table");
    const shown = initiallyShown(summary);
    const state = { column: null, ascending: false, filter: "", all: data.runs.length <= SUMMARY_ROWS };
    const number = (name, run) => {
      const value = Number(summary.cells[name][run][0]);
      return Number.isFinite(value) ? value : -Infinity;
    };

    function order() {
      const runs = data.runs.map((_, index) => index).filter((run) =>
        !state.filter || data.runs[run].toLowerCase().includes(state.filter));
      if (state.column === null) {
        return runs;
      }
      const name = state.column;
      runs.sort((x, y) => {
        const difference = name === "run" ? data.runs[x].localeCompare(data.runs[y]) : number(name, x) - number(name, y);
        return state.ascending ? difference : -difference;
      });
      return runs;
    }

    function header(columns) {
      const head = element("thead");
      const row = element("tr");
      columns.forEach((name) => {
        const cell = element("th", { scope: "col", tabindex: "0",
          title: name === "run" ? "sort by run name (Enter)" : `sort by ${name} (Enter)` }, name);
        if (state.column === name) {
          cell.setAttribute("aria-sort", state.ascending ? "ascending" : "descending");
        }
        const sort = () => {
          state.ascending = state.column === name ? !state.ascending : name === "run" || /_rank$/.test(name);
          state.column = name;
          draw();
        };
        cell.addEventListener("click", sort);
        cell.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            sort();
          }
        });
        row.appendChild(cell);
      });
      head.appendChild(row);
      return head;
    }

    function draw() {
      const columns = ["run"].concat(summary.columns.filter((name) => shown.has(name)));
      table.textContent = "";
      table.appendChild(header(columns));
      const body = element("tbody");
      const runs = order();
      const drawn = state.all ? runs : runs.slice(0, SUMMARY_ROWS);
      drawn.forEach((index) => {
        const row = element("tr", { "data-run": String(index) });
        if (summary.baseline === index) {
          row.className = "baseline";
        }
        const run = data.runs[index];
        row.appendChild(element("th", { scope: "row" }, summary.baseline === index ? run + " (baseline)" : run));
        columns.slice(1).forEach((measure) => {
          const info = cellInfo(summary.cells[measure][index]);
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
      const more = document.getElementById("summary-more");
      more.hidden = drawn.length === runs.length;
      more.textContent = `Show all ${runs.length} runs (${drawn.length} shown)`;
      document.getElementById("picker-count").textContent =
        `${shown.size} of ${summary.columns.length} measures shown`;
      document.getElementById("filter-count").textContent = state.filter ? `${runs.length} runs match` : "";
    }

    document.getElementById("summary-caption").textContent = summary.caption;
    document.getElementById("summary-more").addEventListener("click", () => {
      state.all = true;
      draw();
    });
    const box = document.getElementById("run-filter");
    box.addEventListener("input", () => {
      state.filter = box.value.trim().toLowerCase();
      draw();
    });
    measurePicker(summary, shown, draw);
    // best first by the first measure shown
    const first = summary.columns.find((name) => shown.has(name));
    if (first) {
      state.column = first;
      state.ascending = /_rank$/.test(first);
    }
    draw();
  }

  /* The picker: the summary's measures by group, each with a checkbox; nothing is remembered outside the page. */
  function measurePicker(summary, shown, redraw) {
    const picker = document.getElementById("picker");
    const groups = new Map();
    summary.columns.forEach((name) => {
      const group = summary.groups[name].split(" ")[0];
      if (!groups.has(group)) {
        groups.set(group, []);
      }
      groups.get(group).push(name);
    });
    groups.forEach((names, group) => {
      const set = element("fieldset");
      set.appendChild(element("legend", {}, group));
      const all = element("button", { type: "button" }, "all");
      const none = element("button", { type: "button" }, "none");
      set.appendChild(all);
      set.appendChild(none);
      const boxes = names.map((name) => {
        const box = element("input", { type: "checkbox", value: name });
        box.checked = shown.has(name);
        box.addEventListener("change", () => {
          if (box.checked) {
            shown.add(name);
          } else {
            shown.delete(name);
          }
          redraw();
        });
        const label = element("label");
        label.appendChild(box);
        label.appendChild(document.createTextNode(" " + name));
        set.appendChild(label);
        return box;
      });
      [[all, true], [none, false]].forEach(([button, on]) => button.addEventListener("click", () => {
        boxes.forEach((box) => {
          box.checked = on;
          if (on) {
            shown.add(box.value);
          } else {
            shown.delete(box.value);
          }
        });
        redraw();
      }));
      picker.appendChild(set);
    });
  }



  /* a summary cell: [text, best (0/1), runs it is significantly better than, worse than, of those the
   * differences that could reverse were the unjudged documents judged (--bounds)] */
  function cellInfo(cell) {
    return { text: cell[0], best: cell[1] === 1, better: cell[2], worse: cell[3], fragile: cell[4] || 0 };
  }

  const REVERSIBLE = "could reverse were the unjudged documents judged";

  function significanceMark(info, index, baseline) {
    if (baseline !== null && baseline !== undefined) {
      // only the baseline's pairs are tested: better than one run is better than the baseline
      if (index === baseline) {
        return null;
      }
      const reverses = info.fragile ? "?" : "";
      const caveat = info.fragile ? `; ${REVERSIBLE}` : "";
      if (info.better) {
        return { kind: "up", text: "\u25B2" + reverses, title: "significantly better than the baseline" + caveat };
      }
      if (info.worse) {
        return { kind: "down", text: "\u25BC" + reverses, title: "significantly worse than the baseline" + caveat };
      }
      return null;
    }
    const parts = [];
    if (info.better) {
      parts.push("\u25B2" + info.better);
    }
    if (info.worse) {
      parts.push("\u25BC" + info.worse);
    }
    if (!parts.length) {
      return null;
    }
    if (info.fragile) {
      parts.push("?" + info.fragile);
    }
    return {
      kind: info.better >= info.worse ? "up" : "down",
      text: parts.join(" "),
      title: `significantly better than ${info.better} runs, worse than ${info.worse}` +
        (info.fragile ? `; ${info.fragile} of those ${REVERSIBLE}` : ""),
    };
  }

  /* ------------------------------------------------------------ provenance */

  const OPTION_LABELS = [["relevance_level", "relevance level (-l)"], ["depth", "depth (-M)"],
    ["judged_only", "judged only (-J)"], ["complete", "every query (-c)"], ["test", "test"],
    ["correction", "correction"], ["alpha", "alpha"], ["seed", "seed"], ["permutations", "permutations"],
    ["baseline", "baseline"], ["confidence", "interval (--ci)"]];

  function size(bytes) {
    if (bytes === null || bytes === undefined) {
      return "not a file here";
    }
    const units = [["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
    const unit = units.find(([, scale]) => bytes >= scale);
    return unit ? `${(bytes / unit[1]).toFixed(1)} ${unit[0]}` : `${bytes} B`;
  }

  function provenance(data) {
    const facts = data.provenance;
    document.getElementById("made").textContent = `Made by lexeval ${facts.lexeval} on ${facts.date}.`;
    document.getElementById("command").textContent = facts.command || "";
    const body = document.querySelector("#inputs tbody");
    facts.inputs.forEach((item) => {
      const row = element("tr");
      [item.role, item.name, item.path || "-", size(item.bytes)].forEach((value) =>
        row.appendChild(element("td", {}, value)));
      const digest = element("td");
      digest.appendChild(element("code", {}, item.sha256 || "-"));
      row.appendChild(digest);
      body.appendChild(row);
    });
    const list = document.getElementById("options");
    OPTION_LABELS.forEach(([key, label]) => {
      const value = facts.options[key];
      const shown = value === null || value === undefined ? "-" : value === true ? "yes" : value === false ? "no" :
        String(value);
      const item = element("li");
      item.appendChild(element("span", {}, label + " "));
      item.appendChild(element("b", {}, shown));
      list.appendChild(item);
    });
    if (facts.reproduce) {
      document.getElementById("reproduce").textContent = facts.reproduce;
    } else {
      document.getElementById("reproduce-line").hidden = true;
    }
  }

  /* ------------------------------------------------------------ downloads */

  function download(name, text, type) {
    const link = element("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function csvField(value) {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }

  function csvText(rows) {
    return rows.map((row) => row.map(csvField).join(",")).join("\n") + "\n";
  }

  function summaryCsv(data) {
    const summary = data.summary;
    const rows = [["run"].concat(summary.columns)];
    data.runs.forEach((run, index) => rows.push([run].concat(summary.columns.map((name) =>
      summary.cells[name][index][0]))));
    return csvText(rows);
  }

  function downloads(data) {
    document.getElementById("summary-csv").addEventListener("click", () =>
      download("lexeval-summary.csv", summaryCsv(data), "text/csv"));
    document.getElementById("summary-latex").addEventListener("click", () =>
      download("lexeval-summary.tex", data.exports.latex, "text/x-tex"));
    document.getElementById("summary-markdown").addEventListener("click", () =>
      download("lexeval-summary.md", data.exports.markdown, "text/markdown"));
  }

  /* ------------------------------------------------------------ figures */

  const INK = "#1d2430";
  const MUTED = "#5b6575";
  const BETTER = "#2166ac";
  const WORSE = "#b35806";
  const FONT = "font-family: system-ui, sans-serif; font-size: 11px";
  const figures = {};     // id -> { svg, csv, name }: what the download buttons take

  function text(svg, x, y, content, attributes) {
    const node = svgElement("text", Object.assign({ x, y, fill: MUTED, style: FONT }, attributes || {}));
    node.textContent = content;
    svg.appendChild(node);
    return node;
  }

  function line(svg, x1, y1, x2, y2, stroke, width) {
    svg.appendChild(svgElement("line", { x1, y1, x2, y2, stroke: stroke || MUTED, "stroke-width": width || 1 }));
  }

  /* about five round ticks from low to high */
  function ticks(low, high) {
    if (!(high > low)) {
      return [low];
    }
    const raw = (high - low) / 5;
    const power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= raw);
    const out = [];
    for (let value = Math.ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
      out.push(Number(value.toPrecision(10)));
    }
    return out;
  }

  /* ticks with their texts, at the fewest decimals that print each as it is (0.0025 needs four, 10 none), so that
     no two read the same */
  function labelled(values) {
    let digits = 0;
    const off = (value) => Math.abs(Number(value.toFixed(digits)) - value) > 1e-9 * Math.max(1, Math.abs(value));
    while (digits < 10 && values.some(off)) {
      digits += 1;
    }
    return values.map((value) => [value, fixed(value, digits)]);
  }

  function figureSvg(width, height, label) {
    const svg = svgElement("svg", { xmlns: SVG, width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
      "aria-label": label });
    svg.appendChild(svgElement("rect", { x: 0, y: 0, width, height, fill: "#ffffff" }));
    const title = svgElement("title");
    title.textContent = label;
    svg.appendChild(title);
    return svg;
  }

  function register(id, name, svg, csv) {
    figures[id] = { name, svg, csv };
    const holder = document.querySelector(`.downloads[data-figure="${id}"]`);
    if (holder) {
      holder.dataset.csvRows = String(csv().split("\n").length - 2);
    }
  }

  function figureDownloads() {
    document.querySelectorAll(".downloads[data-figure]").forEach((holder) => {
      holder.querySelectorAll("button").forEach((button) => button.addEventListener("click", () => {
        const figure = figures[holder.dataset.figure];
        if (!figure) {
          return;
        }
        const kind = button.dataset.as;
        if (kind === "csv") {
          download(`${figure.name}.csv`, figure.csv(), "text/csv");
          return;
        }
        const source = new XMLSerializer().serializeToString(figure.svg);
        if (kind === "svg") {
          download(`${figure.name}.svg`, source, "image/svg+xml");
          return;
        }
        const image = new Image();
        image.onload = () => {
          const canvas = element("canvas", { width: String(image.width * 2), height: String(image.height * 2) });
          const context = canvas.getContext("2d");
          context.scale(2, 2);
          context.drawImage(image, 0, 0);
          canvas.toBlob((blob) => {
            const link = element("a", { href: URL.createObjectURL(blob), download: `${figure.name}.png` });
            document.body.appendChild(link);
            link.click();
            link.remove();
          });
        };
        image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(source);
      }));
    });
  }

  const FOREST_ROWS = 60;

  /* the forest plot's numbers of a measure, decoded once (null where missing) */
  function forestEntry(data, name) {
    const entry = data.forest.measures[name];
    if (!entry) {
      return null;
    }
    if (!entry.decoded) {
      entry.decoded = {};
      Object.entries(entry).forEach(([key, value]) => {
        if (typeof value === "string") {
          entry.decoded[key] = Array.from(floats(value), (v) => (Number.isFinite(v) ? v : null));
        }
      });
    }
    return entry.decoded;
  }

  /* show a section, offer its measures in a select, and draw the chosen one now and on each change */
  function measureSection(sectionId, selectId, names, draw) {
    document.getElementById(sectionId).hidden = false;
    const select = document.getElementById(selectId);
    names.forEach((name) => option(select, name, name));
    select.addEventListener("change", () => draw(select.value));
    draw(select.value);
    return select;
  }

  function forestView(data) {
    const measures = Object.keys(data.forest.measures);
    if (measures.length) {
      measureSection("figures", "forest-measure", measures, (name) => drawForest(data, name));
    }
  }

  function drawForest(data, name) {
    const entry = forestEntry(data, name);
    const baseline = data.forest.baseline;
    const against = baseline !== null && baseline !== undefined;
    const key = against ? "difference" : "mean";
    const low = against ? entry.difference_low : entry.low;
    const high = against ? entry.difference_high : entry.high;
    /* --bounds: the least and greatest over the unjudged documents' grades, as whiskers */
    const boundLow = (against ? entry.difference_bound_low : entry.bound_low) || null;
    const boundHigh = (against ? entry.difference_bound_high : entry.bound_high) || null;
    const fragile = (against && entry.fragile) || null;
    const runs = data.runs.map((_, index) => index).filter((run) => !against || run !== baseline &&
      entry[key][run] !== null).sort((x, y) => entry[key][y] - entry[key][x]);
    const shown = runs.slice(0, FOREST_ROWS);
    const level = Math.round(data.forest.confidence * 100);
    const width = 760;
    const left = 170;
    const right = 60;
    const top = 16;
    const rowHeight = 16;
    const height = top + shown.length * rowHeight + 56;
    const values = shown.flatMap((run) => [low[run], high[run], entry[key][run]].concat(boundLow ?
      [boundLow[run], boundHigh[run]] : [])).filter((v) => v !== null);
    let minimum = Math.min(...values, against ? 0 : Infinity);
    let maximum = Math.max(...values, against ? 0 : -Infinity);
    if (!(maximum > minimum)) {
      minimum -= 0.5;
      maximum += 0.5;
    }
    const x = (value) => left + ((value - minimum) / (maximum - minimum)) * (width - left - right);
    const label = against ? `difference from ${data.runs[baseline]} in ${name}` : `mean ${name}`;
    const svg = figureSvg(width, height, `${label} per run with ${level}% intervals`);
    const bottom = top + shown.length * rowHeight + 4;
    line(svg, left, bottom, width - right, bottom);
    labelled(ticks(minimum, maximum)).forEach(([value, label]) => {
      line(svg, x(value), bottom, x(value), bottom + 4);
      text(svg, x(value), bottom + 16, label, { "text-anchor": "middle" });
    });
    if (against) {
      line(svg, x(0), top - 4, x(0), bottom, "#8a94a3");
    }
    text(svg, (left + width - right) / 2, bottom + 34, `${label} (${level}% t interval over ` +
      `${data.queries.length} queries)`, { "text-anchor": "middle", fill: INK });
    shown.forEach((run, row) => {
      const y = top + row * rowHeight + rowHeight / 2;
      const significant = against && entry.p[run] !== null && entry.p[run] < data.alpha;
      const better = entry[key][run] > 0;
      const colour = !against ? INK : significant ? (better ? BETTER : WORSE) : MUTED;
      const reverses = fragile && fragile[run] ? "?" : "";
      const mark = significant ? (better ? " \u25B2" : " \u25BC") + reverses : "";
      text(svg, left - 8, y + 4, data.runs[run] + mark, { "text-anchor": "end", fill: colour });
      if (low[run] !== null && high[run] !== null) {
        line(svg, x(low[run]), y, x(high[run]), y, colour, 1.5);
      }
      if (boundLow && boundLow[run] !== null && boundHigh[run] !== null) {
        const whisker = svgElement("g", { class: "bounds" });
        [[x(boundLow[run]), y + 5, x(boundHigh[run]), y + 5], [x(boundLow[run]), y + 2, x(boundLow[run]), y + 8],
          [x(boundHigh[run]), y + 2, x(boundHigh[run]), y + 8]].forEach(([x1, y1, x2, y2]) =>
          whisker.appendChild(svgElement("line", { x1, y1, x2, y2, stroke: "#8a94a3", "stroke-width": 1 })));
        const tip = svgElement("title");
        tip.textContent = `${data.runs[run]}: ${fixed(boundLow[run])} to ${fixed(boundHigh[run])} over the ` +
          "unjudged documents' grades" + (reverses ? `; ${REVERSIBLE}` : "");
        whisker.appendChild(tip);
        svg.appendChild(whisker);
      }
      const point = svgElement("rect", { x: x(entry[key][run]) - 3.5, y: y - 3.5, width: 7, height: 7,
        fill: significant || !against ? colour : "#ffffff", stroke: colour });
      const tip = svgElement("title");
      tip.textContent = `${data.runs[run]}: ${fixed(entry[key][run])} [${fixed(low[run])}, ${fixed(high[run])}]` +
        (against && entry.p[run] !== null ? `, p = ${pValue(entry.p[run])}` : "");
      point.appendChild(tip);
      svg.appendChild(point);
    });
    const holder = document.getElementById("forest-figure");
    holder.textContent = "";
    holder.appendChild(svg);
    holder.appendChild(element("figcaption", { class: "caption" }, (against ?
      `Each run's ${name} minus the baseline's (${data.runs[baseline]}), per compared query, with its ${level}% ` +
      `t interval; filled and coloured with \u25B2/\u25BC where the pair's test is significant at alpha = ` +
      `${data.alpha} (blue better, orange worse).` :
      `Each run's mean ${name} over the ${data.queries.length} compared queries with its ${level}% t interval, ` +
      "best first.") + (boundLow ? " Grey whiskers: the least and greatest " + (against ? "difference" : "mean") +
      " over every grade the unjudged documents could get (--bounds)" + (fragile ? "; ? a significant " +
      `difference that ${REVERSIBLE}.` : ".") : "") + (runs.length > shown.length ? ` The ${shown.length} highest of ${runs.length} runs; the ` +
      "CSV holds all." : "")));
    register("forest", `lexeval-forest-${name}`, svg, () => csvText([["run", key, "low", "high"].concat(
      against ? ["p"] : [])].concat(runs.map((run) => [data.runs[run], entry[key][run], low[run], high[run]]
      .concat(against ? [entry.p[run]] : [])))));
  }

  function topicView(data) {
    const names = Object.keys(data.measures).filter((name) => data.measures[name].values);
    if (!names.length || !data.queries.length) {
      return;
    }
    const runSelect = document.getElementById("topic-run");
    const measureSelect = document.getElementById("topic-measure");
    data.runs.forEach((run, index) => option(runSelect, index, run));
    names.forEach((name) => option(measureSelect, name, name));
    runSelect.value = String(bestTwo(data)[0]);
    const draw = () => drawTopics(data, Number(runSelect.value), measureSelect.value);
    [runSelect, measureSelect].forEach((select) => select.addEventListener("change", draw));
    draw();
  }

  /* TREC overview papers' per-topic figure: for each query the best, median and worst value over all runs,
     and the chosen run's */
  function drawTopics(data, run, name) {
    const values = perQuery(data, name);
    const queries = data.queries.length;
    const best = [];
    const median = [];
    const worst = [];
    for (let q = 0; q < queries; q += 1) {
      const column = values.map((row) => row[q]).filter(Number.isFinite).sort((a, b) => a - b);
      worst.push(column[0]);
      best.push(column[column.length - 1]);
      const middle = Math.floor(column.length / 2);
      median.push(column.length % 2 ? column[middle] : (column[middle - 1] + column[middle]) / 2);
    }
    const order = median.map((_, q) => q).sort((a, b) => median[b] - median[a]);
    const width = Math.max(560, Math.min(1200, queries * 8 + 100));
    const height = 300;
    const left = 52;
    const top = 14;
    const bottom = 64;
    const step = (width - left - 12) / queries;
    const maximum = Math.max(1e-12, ...best);
    const minimum = Math.min(0, ...worst);
    const y = (value) => top + (1 - (value - minimum) / (maximum - minimum)) * (height - top - bottom);
    const svg = figureSvg(width, height, `${name} per query: ${data.runs[run]} against the best, median and worst run`);
    line(svg, left, height - bottom, width - 12, height - bottom);
    line(svg, left, top, left, height - bottom);
    labelled(ticks(minimum, maximum)).forEach(([value, label]) => {
      line(svg, left - 4, y(value), left, y(value));
      text(svg, left - 6, y(value) + 4, label, { "text-anchor": "end" });
    });
    text(svg, 14, (top + height - bottom) / 2, name, { transform: `rotate(-90 14 ${(top + height - bottom) / 2})`,
      "text-anchor": "middle", fill: INK });
    text(svg, (left + width) / 2, height - 10, `query, by median ${name} over the ${data.runs.length} runs`,
      { "text-anchor": "middle", fill: INK });
    order.forEach((q, position) => {
      const x = left + (position + 0.5) * step;
      line(svg, x, y(worst[q]), x, y(best[q]), "#c5ccd6", Math.max(1, Math.min(4, step * 0.6)));
      line(svg, x - step * 0.35, y(median[q]), x + step * 0.35, y(median[q]), MUTED, 1.5);
      const dot = svgElement("circle", { cx: x, cy: y(values[run][q]), r: Math.max(1.8, Math.min(3.5, step / 3)),
        fill: BETTER });
      const tip = svgElement("title");
      tip.textContent = `query ${data.queries[q]}: ${data.runs[run]} ${fixed(values[run][q])}; best ` +
        `${fixed(best[q])}, median ${fixed(median[q])}, worst ${fixed(worst[q])}`;
      dot.appendChild(tip);
      svg.appendChild(dot);
      if (queries <= 60) {
        text(svg, x, height - bottom + 10, data.queries[q], { "text-anchor": "end",
          transform: `rotate(-60 ${x} ${height - bottom + 10})`, style: FONT.replace("11px", "9px") });
      }
    });
    const legend = [["worst to best (bar)", "#c5ccd6"], ["median (tick)", MUTED], [data.runs[run] + " (dot)", BETTER]];
    legend.forEach(([label, colour], index) => {
      svg.appendChild(svgElement("rect", { x: width - 190, y: top + index * 15, width: 10, height: 10, fill: colour }));
      text(svg, width - 175, top + index * 15 + 9, label);
    });
    const holder = document.getElementById("topic-figure");
    holder.textContent = "";
    holder.appendChild(svg);
    holder.appendChild(element("figcaption", { class: "caption" }, `${name} per compared query: the range over ` +
      `all ${data.runs.length} runs (bar), their median (tick) and ${data.runs[run]} (dot), queries by median. ` +
      "Hover a dot for the query's values."));
    register("topic", `lexeval-topics-${name}-${data.runs[run]}`, svg, () => csvText([["qid", data.runs[run],
      "best", "median", "worst"]].concat(data.queries.map((qid, q) => [qid, values[run][q], best[q], median[q],
      worst[q]]))));
  }

  function drawScatter(data, a, b, name) {
    const holder = document.getElementById("pq-scatter");
    holder.textContent = "";
    const values = perQuery(data, name);
    if (!values || a === b) {
      return;
    }
    const size = 320;
    const margin = 48;
    const all = Array.from(values[a]).concat(Array.from(values[b]));
    const minimum = Math.min(0, ...all);
    const maximum = Math.max(1e-12, ...all);
    const scale = (value) => margin + ((value - minimum) / (maximum - minimum)) * (size - margin - 12);
    const svg = figureSvg(size, size, `${name} per query: ${data.runs[a]} against ${data.runs[b]}`);
    const flip = (value) => size - scale(value);
    line(svg, margin, size - margin, size - 12, size - margin);
    line(svg, margin, size - margin, margin, 12);
    line(svg, scale(minimum), flip(minimum), scale(maximum), flip(maximum), "#8a94a3");
    labelled(ticks(minimum, maximum)).forEach(([value, label]) => {
      text(svg, scale(value), size - margin + 14, label, { "text-anchor": "middle" });
      text(svg, margin - 6, flip(value) + 4, label, { "text-anchor": "end" });
    });
    text(svg, (margin + size) / 2, size - 12, `${data.runs[b]} (${name})`, { "text-anchor": "middle", fill: INK });
    text(svg, 12, (size - margin) / 2, `${data.runs[a]} (${name})`, { "text-anchor": "middle", fill: INK,
      transform: `rotate(-90 12 ${(size - margin) / 2})` });
    data.queries.forEach((qid, q) => {
      const above = values[a][q] > values[b][q];
      const even = values[a][q] === values[b][q];
      const dot = svgElement("circle", { cx: scale(values[b][q]), cy: flip(values[a][q]), r: 3,
        fill: even ? "#8a94a3" : above ? BETTER : WORSE, "fill-opacity": 0.75 });
      const tip = svgElement("title");
      tip.textContent = `query ${qid}: ${data.runs[a]} ${fixed(values[a][q])}, ${data.runs[b]} ${fixed(values[b][q])}`;
      dot.appendChild(tip);
      svg.appendChild(dot);
    });
    holder.appendChild(svg);
    holder.appendChild(element("figcaption", { class: "caption" }, `Each compared query: ${data.runs[a]} (up) ` +
      `against ${data.runs[b]} (across) on ${name}; above the grey identity line (blue) ${data.runs[a]} is ` +
      "better, below (orange) worse. Hover a dot for its query."));
    register("scatter", `lexeval-scatter-${name}`, svg, () => csvText([["qid", data.runs[a], data.runs[b]]]
      .concat(data.queries.map((qid, q) => [qid, values[a][q], values[b][q]]))));
  }

  /* ------------------------------------------------------------ per-query table */

  const QUERY_TABLE_RUNS = 15;

  function queryTable(data) {
    const names = Object.keys(data.measures).filter((name) => data.measures[name].values);
    if (!names.length || !data.queries.length) {
      return;
    }
    const select = measureSection("query-table-section", "qt-measure", names, (name) => drawQueryTable(data, name));
    document.getElementById("qt-csv").addEventListener("click", () => {
      const values = perQuery(data, select.value);
      const rows = [["qid"].concat(data.runs)];
      data.queries.forEach((qid, q) => rows.push([qid].concat(values.map((row) => fixed(row[q])))));
      download(`lexeval-${select.value}-per-query.csv`, csvText(rows), "text/csv");
    });
  }

  function drawQueryTable(data, name) {
    const values = perQuery(data, name);
    const means = data.measures[name].means;
    const order = data.runs.map((_, index) => index).sort((x, y) => means[y] - means[x]);
    const runs = order.slice(0, QUERY_TABLE_RUNS);
    const table = document.getElementById("query-table");
    table.textContent = "";
    const head = element("thead");
    const header = element("tr");
    ["qid"].concat(runs.map((run) => data.runs[run])).forEach((label, column) => {
      const cell = element("th", { scope: "col", tabindex: "0" }, label);
      const sort = () => sortRows(column);
      cell.addEventListener("click", sort);
      cell.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          sort();
        }
      });
      header.appendChild(cell);
    });
    head.appendChild(header);
    table.appendChild(head);
    const body = element("tbody");
    data.queries.forEach((qid, q) => {
      const row = element("tr");
      row.appendChild(element("th", { scope: "row" }, qid));
      runs.forEach((run) => row.appendChild(element("td", { "data-value": String(values[run][q]) },
        fixed(values[run][q]))));
      body.appendChild(row);
    });
    table.appendChild(body);
    let last = { column: -1, ascending: true };
    function sortRows(column) {
      const ascending = last.column === column ? !last.ascending : column === 0;
      last = { column, ascending };
      const rows = Array.from(body.rows);
      const key = (row) => (column === 0 ? row.cells[0].textContent : Number(row.cells[column].dataset.value));
      rows.sort((x, y) => {
        const a = key(x);
        const b = key(y);
        const order = typeof a === "number" ? a - b : String(a).localeCompare(String(b), undefined, { numeric: true });
        return ascending ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
    }
    document.getElementById("qt-caption").textContent =
      `${name} per compared query` + (data.runs.length > runs.length ?
        `, for the ${runs.length} runs with the highest mean (the CSV holds all ${data.runs.length})` : "") +
      ". Click a column's name to sort.";
  }

  /* ------------------------------------------------------------ pairs */

  /* (runs) x (compared queries) values of a measure; null where the page does not carry them */
  function perQuery(data, name) {
    const cache = perQuery.cache || (perQuery.cache = {});
    if (!data.measures[name] || !data.measures[name].values) {
      return null;
    }
    if (!cache[name]) {
      cache[name] = data.measures[name].values.map(floats);
    }
    return cache[name];
  }

  /* p-values by pair index: float32, or with many pairs a byte each (bit 7: p < alpha; below it
     -10 log10 p; 255: not tested) */
  function pValues(entry, alpha) {
    if (entry.p) {
      return floats(entry.p);
    }
    if (!entry.p_bytes) {
      return null;
    }
    const bytes = decode(entry.p_bytes, Uint8Array);
    const out = new Float32Array(bytes.length);
    for (let i = 0; i < bytes.length; i += 1) {
      const byte = bytes[i];
      if (byte === 255) {
        out[i] = NaN;
      } else {
        const p = 10 ** (-(byte & 127) / 10);
        // keep the exact verdict: a significant p stays below alpha, another at or above it
        out[i] = byte & 128 ? Math.min(p, alpha * 0.999999) : Math.max(p, alpha);
      }
    }
    return out;
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
      const decoded = entry.decoded || (entry.decoded = decodePreference(entry, data.queries.length, data.compact));
      const win = decoded.win[at];
      const loss = decoded.loss[at];
      facts = {
        mean: sign * decoded.mean(at),
        win: sign > 0 ? win : loss,
        loss: sign > 0 ? loss : win,
        tie: data.queries.length - win - loss,
        entry,
      };
    }
    const entry = facts.entry;
    entry.pDecoded = entry.pDecoded || pValues(entry, data.alpha);
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

  /* a preference's per-pair counts and mean: float32 means, or with many pairs int16 (x 32767), or for LP
     and LR none (the mean is (wins - losses) / queries) */
  function decodePreference(entry, queries, compact) {
    const Kind = { u1: Uint8Array, u2: Uint16Array, i4: Int32Array }[entry.counts] || Int32Array;
    const win = decode(entry.win, Kind);
    const loss = decode(entry.loss, Kind);
    let mean;
    if (entry.mean === null) {
      mean = (at) => (win[at] - loss[at]) / queries;
    } else if (compact) {
      const scaled = decode(entry.mean, Int16Array);
      mean = (at) => (scaled[at] === -32768 ? NaN : scaled[at] / 32767);
    } else {
      const values = floats(entry.mean);
      mean = (at) => values[at];
    }
    return { win, loss, mean };
  }

  /* the measures whose pairs the page carries */
  function matrixNames(data) {
    return Object.keys(data.preferences).concat(Object.keys(data.measures).filter((name) =>
      data.measures[name].values && !data.measures[name].untested_on_page));
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

  /* With a baseline only its pairs are tested: one column, each run against it, with its interval. */
  function drawBaselineColumn(data, name) {
    const grid = document.getElementById("matrix-grid");
    const baseline = data.summary.baseline;
    const intervals = forestEntry(data, name);
    const table = element("table", { class: "matrix baseline-column" });
    const head = element("tr");
    const level = Math.round(data.forest.confidence * 100);
    ["run", `${data.preferences[name] ? "mean preference over" : "difference from"} ${data.runs[baseline]}`,
      `${level}% interval`, "p", "wins", "losses", "ties"].forEach((label) =>
      head.appendChild(element("th", { scope: "col" }, label)));
    table.appendChild(head);
    const runs = data.runs.map((_, index) => index).filter((run) => run !== baseline);
    runs.sort((x, y) => pairFacts(data, name, y, baseline).mean - pairFacts(data, name, x, baseline).mean);
    runs.forEach((run) => {
      const facts = pairFacts(data, name, run, baseline);
      const significant = facts.p < data.alpha;
      const interval = facts.interval || (intervals ? [intervals.difference_low[run],
        intervals.difference_high[run]] : null);
      const row = element("tr");
      row.appendChild(element("th", { scope: "row" }, data.runs[run]));
      const sign = facts.mean > 0 ? "+" : facts.mean < 0 ? "\u2212" : "=";
      const arrow = significant ? (facts.mean > 0 ? "\u25B2" : "\u25BC") : "";
      const cell = element("td", { class: facts.mean > 0 ? (significant ? "better-significant" : "better") :
        facts.mean < 0 ? (significant ? "worse-significant" : "worse") : "even" },
        `${arrow}${sign}${fixed(Math.abs(facts.mean))}`);
      cell.dataset.a = String(run);
      cell.dataset.b = String(baseline);
      row.appendChild(cell);
      row.appendChild(element("td", {}, interval && interval[0] !== null ?
        `[${fixed(interval[0])}, ${fixed(interval[1])}]` : ""));
      row.appendChild(element("td", {}, pValue(facts.p)));
      [facts.win, facts.loss, facts.tie].forEach((count) => row.appendChild(element("td", {}, String(count))));
      table.appendChild(row);
    });
    table.addEventListener("click", (event) => {
      const cell = event.target.closest("td");
      if (cell && cell.dataset.a !== undefined) {
        choosePair(data, Number(cell.dataset.a), Number(cell.dataset.b), name);
      }
    });
    grid.appendChild(table);
    document.getElementById("matrix-caption").textContent =
      `Each run against the baseline ${data.runs[baseline]} on ${name} over the ${data.queries.length} compared ` +
      `queries: blue and + better, orange and \u2212 worse, \u25B2/\u25BC significant at alpha = ${data.alpha} ` +
      "(the test and correction are in the summary's caption). Click a row to see its queries below.";
  }

  const CANVAS_RUNS = 60;        // beyond this many runs the matrix is drawn on a canvas, a pixel or more a pair

  function drawMatrixCanvas(data, name) {
    const grid = document.getElementById("matrix-grid");
    const runs = data.runs.length;
    const cell = Math.max(1, Math.floor(900 / runs));
    const side = cell * runs;
    const canvas = element("canvas", { width: String(side), height: String(side), tabindex: "0", role: "img",
      "aria-label": `${name}: ${runs} x ${runs} matrix of row run against column run (blue better, orange ` +
        "worse, dark significant); the text output lists every pair" });
    const context = canvas.getContext("2d");
    const image = context.createImageData(side, side);
    const colours = { "better-significant": [0x21, 0x66, 0xac], better: [0xd1, 0xe5, 0xf0],
      "worse-significant": [0xb3, 0x58, 0x06], worse: [0xfe, 0xe0, 0xb6], even: [0xee, 0xf0, 0xf3],
      diagonal: [0xf4, 0xf6, 0xf9], untested: [0xff, 0xff, 0xff] };
    const measure = data.measures[name];
    const entry = measure || data.preferences[name];
    entry.pDecoded = entry.pDecoded || pValues(entry, data.alpha);
    const decoded = measure ? null : (entry.decoded = entry.decoded ||
      decodePreference(entry, data.queries.length, data.compact));
    for (let a = 0; a < runs; a += 1) {
      for (let b = 0; b < runs; b += 1) {
        let kind = "diagonal";
        if (a !== b) {
          const at = pairIndex(a, b, runs);
          const mean = measure ? measure.means[a] - measure.means[b] : (a < b ? 1 : -1) * decoded.mean(at);
          const significant = entry.pDecoded && entry.pDecoded[at] < data.alpha;
          kind = !Number.isFinite(mean) ? "untested" : mean > 0 ? (significant ? "better-significant" : "better") :
            mean < 0 ? (significant ? "worse-significant" : "worse") : "even";
        }
        const [red, green, blue] = colours[kind];
        for (let y = a * cell; y < (a + 1) * cell; y += 1) {
          for (let x = b * cell; x < (b + 1) * cell; x += 1) {
            const at = (y * side + x) * 4;
            image.data[at] = red;
            image.data[at + 1] = green;
            image.data[at + 2] = blue;
            image.data[at + 3] = 255;
          }
        }
      }
    }
    context.putImageData(image, 0, 0);
    const pairAt = (event) => {
      const box = canvas.getBoundingClientRect();
      const a = Math.floor(((event.clientY - box.top) / box.height) * runs);
      const b = Math.floor(((event.clientX - box.left) / box.width) * runs);
      return a >= 0 && b >= 0 && a < runs && b < runs && a !== b ? [a, b] : null;
    };
    canvas.addEventListener("mousemove", (event) => {
      const pair = pairAt(event);
      if (!pair) {
        hideTip();
        return;
      }
      const facts = pairFacts(data, name, pair[0], pair[1]);
      showTip(`${data.runs[pair[0]]} vs ${data.runs[pair[1]]} on ${name}\nmean: ${fixed(facts.mean)}\n` +
        `wins ${facts.win}, losses ${facts.loss}, ties ${facts.tie}\np = ${pValue(facts.p)}`, event);
    });
    canvas.addEventListener("mouseleave", hideTip);
    canvas.addEventListener("click", (event) => {
      const pair = pairAt(event);
      if (pair) {
        choosePair(data, pair[0], pair[1], name);
      }
    });
    grid.appendChild(canvas);
    document.getElementById("matrix-caption").textContent =
      `Row run against column run (runs in command-line order, the first at the top left): mean ` +
      `${data.preferences[name] ? "preference" : "difference"} over the ${data.queries.length} compared queries; ` +
      `blue: the row run is better, orange: worse, dark: significant at alpha = ${data.alpha}. Hover a pixel for ` +
      "the pair, click it to see its queries below." + (data.compact ? " With this many pairs the page keeps " +
        "each p to a tenth of a decade (the text output has them whole)." : "");
  }

  function drawMatrix(data, name) {
    const grid = document.getElementById("matrix-grid");
    grid.textContent = "";
    if (data.summary.baseline !== null && data.summary.baseline !== undefined) {
      drawBaselineColumn(data, name);
      return;
    }
    if (data.runs.length > CANVAS_RUNS) {
      drawMatrixCanvas(data, name);
      return;
    }
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
          if (!Number.isFinite(facts.mean)) {
            cell.className = "untested";
            cell.setAttribute("aria-label", `${run} against ${other}: not compared`);
            cell.dataset.a = String(a);
            cell.dataset.b = String(b);
            row.appendChild(cell);
            return;
          }
          if (facts.mean > 0) {
            cell.className = significant ? "better-significant" : "better";
          } else if (facts.mean < 0) {
            cell.className = significant ? "worse-significant" : "worse";
          } else {
            cell.className = "even";
          }
          // never colour alone: a sign (+ better, - worse, = even) and, where significant, an arrow
          const sign = facts.mean > 0 ? "+" : facts.mean < 0 ? "\u2212" : "=";
          const arrow = significant ? (facts.mean > 0 ? "\u25B2" : "\u25BC") : "";
          cell.textContent = withText && Number.isFinite(facts.mean) ?
            `${arrow}${sign}${fixed(Math.abs(facts.mean), 2)}` : (arrow || sign);
          cell.setAttribute("aria-label", `${run} against ${other}: ${fixed(facts.mean)}` +
            (significant ? ", significant" : ""));
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
      `over the ${data.queries.length} compared queries; blue and + : the row run is better, orange and \u2212 : ` +
      `worse, \u25B2/\u25BC: ${tested}. ` +
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
    const column = summary.columns.find((name) => data.measures[name] || name.endsWith("_score") ||
      name.endsWith(" vs baseline"));
    if (!column) {
      return [0, 1];
    }
    const order = data.runs.map((_, index) => index);
    order.sort((x, y) => Number(summary.cells[column][y][0]) - Number(summary.cells[column][x][0]));
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
    const names = matrixNames(data);
    selectMeasure.value = names.find((name) => data.measures[name]) || names[0];
    let [a, b] = bestTwo(data);
    const baseline = data.summary.baseline;
    if (baseline !== null && baseline !== undefined) {       // each run against the baseline
      b = baseline;
      a = bestTwo(data).find((run) => run !== baseline);
    }
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
      return values ? Array.from(values[a], (value, q) => value - values[b][q]) : null;
    }
    const entry = data.preferences[name];
    const stored = entry ? entry.per_query[String(pairIndex(a, b, data.runs.length))] : undefined;
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
    drawScatter(data, a, b, name);
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
        shape = svgElement("circle", { class: "tie", fill: "#8a94a3", cx: x + step / 2, cy: zero,
          r: Math.max(1.5, Math.min(3, step / 2)) });
      } else {
        if (value > 0) {
          wins += 1;
        } else {
          losses += 1;
        }
        const y = value > 0 ? zero - value * scale : zero;
        shape = svgElement("rect", { class: value > 0 ? "bar-better" : "bar-worse", fill: value > 0 ? BETTER : WORSE, x, y,
          width: Math.max(1, step - 1), height: Math.max(1, Math.abs(value) * scale) });
      }
      const title = svgElement("title");
      title.textContent = `query ${data.queries[q]}: ${fixed(value)}`;
      shape.appendChild(title);
      svg.appendChild(shape);
    });
    svg.setAttribute("xmlns", SVG);
    text(svg, left + 4, height - 6, `queries, sorted by ${data.runs[a]} minus ${data.runs[b]} (${name})`);
    text(svg, 12, zero, `difference in ${name}`, { "text-anchor": "middle", fill: INK,
      transform: `rotate(-90 12 ${zero})` });
    chart.appendChild(svg);
    register("differences", `lexeval-differences-${name}`, svg, () => csvText([["qid", "difference"]]
      .concat(order.map((q) => [data.queries[q], values[q]]))));
    caption.textContent = `${data.runs[a]} minus ${data.runs[b]} on ${name}, per compared query, sorted: ` +
      `${wins} wins (blue, above the line), ${losses} losses (orange, below), ${ties} ties (grey dots).`;
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
      data.report_tables.filter((table) => table.report === report).forEach((table) => reportTable(list, table));
      if (REPORT_FIGURES[report]) {
        REPORT_FIGURES[report](list, groups, data);
        return;
      }
      groups.filter((group) => group.rows.length > 12).forEach((group) => list.appendChild(seriesChart(group)));
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

  /* ------------------------------------------------------------ the newer reports' tables and figures */

  /* one of a report's tables, laid out for its figures (Python's report_grids: the same as --format table) */
  function reportTable(list, table) {
    const grid = element("table", { class: "report" });
    grid.appendChild(element("caption", { class: "caption" }, `${table.title}. ${table.note}`));
    const head = element("tr");
    table.header.forEach((name, column) => head.appendChild(element("th", column < table.labels ?
      { scope: "col", class: "label" } : { scope: "col" }, name)));
    grid.appendChild(head);
    table.rows.forEach((cells) => {
      const row = element("tr");
      cells.forEach((cell, column) => row.appendChild(column < table.labels ?
        element("th", { scope: "row", class: "label" }, cell) : element("td", {}, cell)));
      grid.appendChild(row);
    });
    const scroll = element("div", { class: "scroll" });
    scroll.appendChild(grid);
    list.appendChild(scroll);
  }

  let reportFigures = 0;

  /* a report's figure with its caption and SVG/PNG/CSV downloads */
  function reportFigure(list, svg, caption, name, csv) {
    reportFigures += 1;
    const id = `report${reportFigures}`;
    const buttons = element("p", { class: "controls" });
    const holder = element("span", { class: "downloads", "data-figure": id }, "Download ");
    ["svg", "png", "csv"].forEach((kind) => holder.appendChild(element("button", { type: "button",
      "data-as": kind }, kind.toUpperCase())));
    buttons.appendChild(holder);
    list.appendChild(buttons);
    const figure = element("figure");
    figure.appendChild(svg);
    figure.appendChild(element("figcaption", { class: "caption" }, caption));
    list.appendChild(figure);
    register(id, name, svg, csv);
  }

  /* x-y axes with ticks and titles; returns the two scales. ``xNames``: texts under the x axis at 0.5, 1.5, ...
     (runs, one per bar), instead of numbered ticks; an empty list: no x ticks (the names are on hover) */
  function axes(svg, width, height, box, xRange, yRange, xTitle, yTitle, logY, xNames) {
    const [left, top, right, bottom] = box;
    const ly = (value) => (logY ? Math.log10(value) : value);
    const x = (value) => left + ((value - xRange[0]) / (xRange[1] - xRange[0] || 1)) * (width - left - right);
    const y = (value) => height - bottom - ((ly(value) - ly(yRange[0])) / (ly(yRange[1]) - ly(yRange[0]) || 1)) *
      (height - top - bottom);
    line(svg, left, height - bottom, width - right, height - bottom);
    line(svg, left, top, left, height - bottom);
    if (xNames) {
      xNames.forEach((name, index) => text(svg, x(index + 0.5) + 3, height - bottom + 6, name, { "text-anchor": "end",
        transform: `rotate(-90 ${x(index + 0.5) + 3} ${height - bottom + 6})` }));
    } else {
      labelled(ticks(xRange[0], xRange[1])).forEach(([value, label]) => text(svg, x(value), height - bottom + 14,
        label, { "text-anchor": "middle" }));
    }
    const yTicks = logY ? ticks(Math.floor(ly(yRange[0])), Math.ceil(ly(yRange[1]))).filter(Number.isInteger)
      .map((power) => 10 ** power) : ticks(yRange[0], yRange[1]);
    labelled(yTicks.filter((value) => value >= yRange[0] && value <= yRange[1])).forEach(([value, label]) =>
      text(svg, left - 6, y(value) + 4, logY ? String(value) : label, { "text-anchor": "end" }));
    text(svg, (left + width - right) / 2, height - 6, xTitle, { "text-anchor": "middle", fill: INK });
    text(svg, 12, (top + height - bottom) / 2, yTitle, { "text-anchor": "middle", fill: INK,
      transform: `rotate(-90 12 ${(top + height - bottom) / 2})` });
    return [x, y];
  }

  const PALETTE = [BETTER, WORSE, "#5e3c99", "#1b9e77", "#66a61e", "#e6ab02", "#a6761d", "#666666"];

  function powerFigure(list, groups) {
    const curves = groups.map((group) => ({ measure: group.measure, points: group.rows
      .filter(([parameter, value]) => parameter.startsWith("queries_t@") && value > 0)
      .map(([parameter, value]) => [Number(parameter.split("@")[1]), value]).sort((a, b) => a[0] - b[0]) }))
      .filter((curve) => curve.points.length);
    if (!curves.length) {
      return;
    }
    const all = curves.flatMap((curve) => curve.points);
    const width = 560;
    const height = 280;
    const svg = figureSvg(width, height, "queries a paired t-test needs against the difference to detect");
    const [x, y] = axes(svg, width, height, [56, 12, 150, 34], [0, Math.max(...all.map((p) => p[0]))],
      [1, Math.max(10, ...all.map((p) => p[1]))], "minimum detectable difference (delta)",
      "queries needed", true);
    curves.slice(0, 8).forEach((curve, index) => {
      svg.appendChild(svgElement("polyline", { points: curve.points.map(([a, b]) => `${x(a)},${y(b)}`).join(" "),
        fill: "none", stroke: PALETTE[index], "stroke-width": 1.5 }));
      text(svg, width - 140, 20 + index * 14, curve.measure, { fill: PALETTE[index] });
    });
    reportFigure(list, svg, "Queries a paired t-test needs to see each delta at alpha with the power asked " +
      "(Sakai's topic set size design), per measure (the first 8).", "lexeval-power",
      () => csvText([["measure", "delta", "queries"]].concat(curves.flatMap((curve) =>
        curve.points.map(([delta, queries]) => [curve.measure, delta, queries])))));
  }

  function reproductionFigure(list, groups) {
    const points = groups.map((group) => {
      const values = new Map(group.rows);
      return [group.measure, values.get("ER"), values.get("DeltaRI")];
    }).filter(([, er, delta]) => Number.isFinite(er) && Number.isFinite(delta));
    if (!points.length) {
      return;
    }
    const width = 520;
    const height = 340;
    const svg = figureSvg(width, height, "effect ratio against delta relative improvement, per measure");
    const ers = points.map((p) => p[1]).concat([0, 1.5]);
    const deltas = points.map((p) => p[2]).concat([-0.5, 0.5]);
    const [x, y] = axes(svg, width, height, [56, 12, 12, 34], [Math.min(...ers), Math.max(...ers)],
      [Math.min(...deltas), Math.max(...deltas)], "effect ratio ER (1: the improvement reproduced in full)",
      "delta RI (0: the same)");
    line(svg, x(1), y(Math.min(...deltas)), x(1), y(Math.max(...deltas)), "#c5ccd6");
    line(svg, x(Math.min(...ers)), y(0), x(Math.max(...ers)), y(0), "#c5ccd6");
    points.forEach(([measure, er, delta]) => {
      const dot = svgElement("circle", { cx: x(er), cy: y(delta), r: 3.5, fill: BETTER });
      const tip = svgElement("title");
      tip.textContent = `${measure}: ER ${fixed(er)}, DeltaRI ${fixed(delta)}`;
      dot.appendChild(tip);
      svg.appendChild(dot);
      text(svg, x(er) + 5, y(delta) - 4, measure);
    });
    reportFigure(list, svg, "Each measure's effect ratio against its delta relative improvement, as repro_eval " +
      "draws them: a reproduction at (1, 0) keeps the original effect in full.", "lexeval-reproduction",
      () => csvText([["measure", "ER", "DeltaRI"]].concat(points)));
  }

  function judgesFigure(list, groups) {
    groups.filter((group) => group.rows.some(([parameter]) => parameter.startsWith("score:"))).slice(0, 6)
      .forEach((group) => {
        const boards = new Map();
        group.rows.filter(([parameter]) => parameter.startsWith("score:")).forEach(([parameter, value]) => {
          const [, set, ...run] = parameter.split(":");
          if (!boards.has(set)) {
            boards.set(set, new Map());
          }
          boards.get(set).set(run.join(":"), value);
        });
        const [first, ...others] = Array.from(boards.keys());
        others.forEach((other) => {
          const runs = Array.from(boards.get(first).keys());
          const xs = runs.map((run) => boards.get(first).get(run));
          const ys = runs.map((run) => boards.get(other).get(run));
          const low = Math.min(...xs, ...ys);
          const high = Math.max(...xs, ...ys);
          const size = 340;
          const svg = figureSvg(size, size, `${group.measure}: the leaderboard under ${first} against ${other}`);
          const [x, y] = axes(svg, size, size, [56, 12, 12, 34], [low, high], [low, high],
            `${group.measure} under ${first}`, `under ${other}`);
          line(svg, x(low), y(low), x(high), y(high), "#c5ccd6");
          runs.forEach((run, index) => {
            const dot = svgElement("circle", { cx: x(xs[index]), cy: y(ys[index]), r: 3.5, fill: BETTER });
            const tip = svgElement("title");
            tip.textContent = `${run}: ${fixed(xs[index])} under ${first}, ${fixed(ys[index])} under ${other}`;
            dot.appendChild(tip);
            svg.appendChild(dot);
          });
          reportFigure(list, svg, `${group.measure}: each run's score under ${first} (across) and ${other} (up); ` +
            "off the identity line the sets score it differently, crossings are rank changes.",
            `lexeval-judges-${group.measure}`, () => csvText([["run", first, other]].concat(runs.map((run, index) =>
              [run, xs[index], ys[index]]))));
        });
      });
  }

  function reusabilityFigure(list, groups) {
    groups.filter((group) => group.rows.some(([parameter]) => parameter.startsWith("drop:"))).slice(0, 6)
      .forEach((group) => {
        const drops = group.rows.filter(([parameter]) => parameter.startsWith("drop:"))
          .map(([parameter, value]) => [parameter.slice(5), value]).sort((a, b) => b[1] - a[1]);
        const named = drops.length <= 30;          /* beyond, the names are on hover and in the table above */
        const width = Math.max(360, Math.min(900, drops.length * 14 + 80));
        const bottom = named ? 14 + 6 * Math.min(16, Math.max(...drops.map((d) => d[0].length))) : 34;
        const height = 206 + bottom;
        const svg = figureSvg(width, height, `${group.measure}: each run's drop without its unique documents`);
        const values = drops.map((d) => d[1]).concat([0]);
        let low = Math.min(...values);
        let high = Math.max(...values);
        if (!(high > low)) {                        /* no drop anywhere: a range around it, ticks that differ */
          low -= 0.001;
          high += 0.001;
        }
        const [, y] = axes(svg, width, height, [56, 12, 12, bottom], [0, drops.length], [low, high],
          named ? "" : `${drops.length} runs, largest drop first (names on hover)`, `drop in ${group.measure}`,
          false, named ? drops.map((d) => (d[0].length > 16 ? `${d[0].slice(0, 15)}…` : d[0])) : []);
        const step = (width - 68) / drops.length;
        drops.forEach(([run, value], index) => {
          const bar = svgElement("rect", { x: 56 + index * step, width: Math.max(1, step - 2),
            y: Math.min(y(0), y(value)), height: Math.max(1, Math.abs(y(0) - y(value))),
            fill: value >= 0 ? WORSE : BETTER });
          const tip = svgElement("title");
          tip.textContent = `${run}: ${fixed(value)}`;
          bar.appendChild(tip);
          svg.appendChild(bar);
        });
        reportFigure(list, svg, `${group.measure}: how much each run loses without the relevant documents only ` +
          "it (its group) contributed to the pool; orange a loss, blue a gain.", `lexeval-reusability-` +
          group.measure, () => csvText([["run", "drop"]].concat(drops)));
      });
  }

  const REPORT_FIGURES = { power: powerFigure, reproduction: reproductionFigure, judges: judgesFigure,
    reusability: reusabilityFigure };

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
    const started = performance.now();
    const data = JSON.parse(document.getElementById("data").textContent);
    const timings = { parse: performance.now() - started };
    const step = (name, draw) => {
      const before = performance.now();
      draw(data);
      timings[name] = performance.now() - before;
    };
    document.getElementById("version").textContent = data.version;
    document.getElementById("about").textContent =
      `${data.runs.length} runs; ${data.num_queries} queries, ${data.queries.length} of them compared ` +
      "(with a relevant document).";
    step("provenance", provenance);
    step("summary", summaryTable);
    step("forest", forestView);
    step("topics", topicView);
    step("matrix", matrix);
    step("pairs", perQueryView);
    step("queries", queryTable);
    step("reports", reports);
    figureDownloads();
    downloads(data);
    // what each part cost, in milliseconds (the benchmarks and tests read it)
    document.body.dataset.timings = JSON.stringify(timings, (key, value) =>
      (typeof value === "number" ? Math.round(value) : value));
    document.body.dataset.ready = "true";
  }

  try {
    main();
  } catch (error) {
    reportError(error && error.stack ? error.stack : error);
  }
}());
