// The page of `network-enforcer learn|replay --report` and of the writer's live view: draws the
// report model (inlined as JSON) with Cytoscape.js and keeps the graph, the tables and the details
// panel in step with the filters. The live view's model also has policies, modes and violations.
(function () {
  'use strict';
  var scriptStart = performance.now();
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var byId = {};
  data.workloads.forEach(function (w) { byId[w.id] = w; });
  var filter = { namespace: '', query: '' };
  var live = data.live || null;
  var policies = live ? live.policies : [];
  var violations = live ? live.violations : [];

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }
  function portLabel(p) { return p.protocol + '/' + p.port; }
  function countLabel(p) { return p.count === null || p.count === undefined ? portLabel(p) : portLabel(p) + ' \u00d7' + p.count; }
  // The mode of each direction of a workload: its policy's mode, or learning while only a proposal exists.
  var modeOf = {};
  data.proposals.forEach(function (p) { (modeOf[p.workload] = modeOf[p.workload] || {})[p.direction] = 'learning'; });
  policies.forEach(function (p) { (modeOf[p.workload] = modeOf[p.workload] || {})[p.direction] = p.mode; });
  function modes(id) { return modeOf[id] || {}; }
  function modeLine(id) {
    var m = modes(id);
    return ['Ingress', 'Egress'].filter(function (d) { return m[d]; })
      .map(function (d) { return d.toLowerCase() + ': ' + m[d]; }).join(', ');
  }
  function commandList(commands) {
    var box = el('div', null, 'commands');
    commands.forEach(function (c) {
      box.appendChild(el('div', c.purpose, 'muted'));
      var code = el('code', c.command, 'command');
      code.dataset.purpose = c.purpose;
      box.appendChild(code);
    });
    return box;
  }
  function shortName(id) { var w = byId[id]; return w ? w.namespace + '/' + w.name : id; }

  // A workload passes when it is in the chosen namespace and its name contains the search text.
  function passes(id) {
    var w = byId[id];
    if (!w) { return false; }
    if (filter.namespace && w.namespace !== filter.namespace) { return false; }
    return !filter.query || w.name.toLowerCase().indexOf(filter.query) >= 0;
  }
  // A connection (and a rule) is shown when either end passes, so peers in other namespaces stay in view.
  function connectionShown(c) { return passes(c.source) || passes(c.target); }

  // What decides whether the proposals can be trusted at all (events lost, not converged), above everything.
  function warnings() {
    var list = data.warnings || [];
    var box = document.getElementById('warnings');
    box.hidden = !list.length;
    var ul = box.querySelector('ul');
    list.forEach(function (w) { ul.appendChild(el('li', w)); });
  }

  function summary() {
    if (live) {
      var byMode = {};
      policies.forEach(function (p) { byMode[p.mode] = (byMode[p.mode] || 0) + 1; });
      document.querySelector('header h1').textContent = 'Network Enforcer: live view';
      document.getElementById('summary').textContent = data.source + ' \u00b7 as of '
        + live.generatedAt + ' \u00b7 ' + data.proposals.length + ' proposals (learning), ' + policies.length
        + ' policies (' + (byMode.monitor || 0) + ' monitor, ' + (byMode.protect || 0) + ' protect), '
        + violations.length + ' active violations \u00b7 read-only: run the kubectl commands shown to act';
      return;
    }
    var t = data.totals;
    document.getElementById('summary').textContent = data.source + ' \u00b7 ' + data.format + ', backend '
      + data.backend + ' \u00b7 ' + t.recordsRead + ' records read, ' + t.flowsPublished + ' flows used, '
      + t.dropped + ' dropped, ' + t.unreadable + ' unreadable \u00b7 ' + data.proposals.length + ' proposals, '
      + data.connections.length + ' connections';
  }

  // team2 before team10.
  function byName(a, b) { return a.localeCompare(b, 'en', { numeric: true }); }
  function namespaces() {
    var seen = {};
    data.workloads.forEach(function (w) { seen[w.namespace] = true; });
    return Object.keys(seen).sort(byName);
  }

  // Above this many workloads in view, namespaces start collapsed (one box each, with the
  // connections between namespaces counted), so the first picture is a readable map, not a tangle.
  var EXPANDED_UP_TO = 60;
  // Below this rendered size a label is not drawn at all: a smudge is not text.
  var MIN_FONT_PX = 10;
  var OUTSIDE = '(outside the cluster)';
  var state = { collapsed: {} };
  var timings = {};
  var workloadCount = {};
  data.workloads.forEach(function (w) { workloadCount[w.namespace] = (workloadCount[w.namespace] || 0) + 1; });

  function workloadNode(w) {
    var m = modes(w.id), line = modeLine(w.id);
    var classes = w.learned ? 'workload learned' : 'workload';
    if (m.Ingress === 'protect' || m.Egress === 'protect') { classes += ' protect'; }
    else if (m.Ingress === 'monitor' || m.Egress === 'monitor') { classes += ' monitor'; }
    return { group: 'nodes', data: { id: w.id, parent: 'namespace:' + w.namespace,
      label: w.name + '\n' + w.kind + (line ? '\n' + line : ''), namespace: w.namespace }, classes: classes };
  }
  function connectionEdge(c) {
    var label = c.ports.map(countLabel).join('\n');
    if (c.kind === 'violation') { label = '\u26a0 ' + label + (c.lastSeen ? '\nlast ' + c.lastSeen : ''); }
    return { group: 'edges', data: { id: c.id, source: c.source, target: c.target, label: label },
      classes: c.kind || 'learned' };
  }

  // What the filters let through: workloads that pass, connections with an end that passes, and their ends.
  function shown() {
    var edges = [], nodes = {};
    data.connections.forEach(function (c) {
      if (connectionShown(c)) { edges.push(c); nodes[c.source] = true; nodes[c.target] = true; }
    });
    data.workloads.forEach(function (w) { if (passes(w.id)) { nodes[w.id] = true; } });
    return { edges: edges, nodes: nodes };
  }

  function isCollapsed(ns, total, matching) {
    if (ns === filter.namespace) { return false; }
    if (state.collapsed[ns] !== undefined) { return state.collapsed[ns]; }
    if (total <= EXPANDED_UP_TO) { return false; }
    // A search keeps the namespaces of what it found open; their peers' namespaces stay boxes.
    return !(filter.query && matching[ns]);
  }

  // The elements in view: every shown workload inside its namespace, or its namespace as one box
  // when collapsed; connections to a collapsed namespace become one counted edge per pair of ends.
  function elementsInView(view) {
    var byNs = {}, total = 0, matching = {};
    Object.keys(view.nodes).forEach(function (id) {
      var w = byId[id];
      if (!w) { return; }
      (byNs[w.namespace] = byNs[w.namespace] || []).push(w);
      total++;
      if (filter.query && passes(id)) { matching[w.namespace] = true; }
    });
    var out = [], collapsed = {};
    Object.keys(byNs).sort().forEach(function (ns) {
      var members = byNs[ns];
      collapsed[ns] = isCollapsed(ns, total, matching);
      var count = members.length === workloadCount[ns] ? members.length + (members.length === 1 ? ' workload' : ' workloads')
        : members.length + ' of ' + workloadCount[ns] + ' workloads';
      out.push({ group: 'nodes', data: { id: 'namespace:' + ns, namespace: ns,
        label: collapsed[ns] ? ns + '\n' + count : ns + ' \u00b7 ' + count },
        classes: collapsed[ns] ? 'namespace collapsed' : 'namespace' });
      if (!collapsed[ns]) { members.forEach(function (w) { out.push(workloadNode(w)); }); }
    });
    var grouped = {};
    view.edges.forEach(function (c) {
      var s = byId[c.source], t = byId[c.target];
      var sEnd = collapsed[s.namespace] ? 'namespace:' + s.namespace : c.source;
      var tEnd = collapsed[t.namespace] ? 'namespace:' + t.namespace : c.target;
      if (sEnd === c.source && tEnd === c.target) { out.push(connectionEdge(c)); return; }
      if (sEnd === tEnd) { return; } // inside one collapsed namespace: counted in its box only
      var id = 'group:' + sEnd + ' -> ' + tEnd;
      var g = grouped[id] || (grouped[id] = { id: id, source: sEnd, target: tEnd, count: 0, violation: false });
      g.count++;
      g.violation = g.violation || c.kind === 'violation';
    });
    Object.keys(grouped).sort().forEach(function (id) {
      var g = grouped[id];
      // No label: dozens of "N connections" between boxes would be the tangle again; the width tells.
      out.push({ group: 'edges', data: { id: id, source: g.source, target: g.target, count: g.count },
        classes: 'grouped' + (g.violation ? ' violation' : '') });
    });
    return out;
  }

  // Everything above the graph is in place before Cytoscape reads where its container is.
  warnings();
  summary();
  var cy = cytoscape({
    container: document.getElementById('graph'),
    elements: [],
    wheelSensitivity: 0.3,
    minZoom: 0.05,
    maxZoom: 3,
    // Large graphs: draw a picture while panning and zooming instead of every edge.
    textureOnViewport: data.workloads.length > 300,
    hideEdgesOnViewport: data.connections.length > 1000,
    style: [
      { selector: 'node, edge', style: { 'min-zoomed-font-size': MIN_FONT_PX } },
      { selector: 'node.workload', style: { shape: 'round-rectangle', width: 'label', height: 'label', padding: '8px',
        'background-color': '#e6edf3', 'border-width': 1, 'border-color': '#8c959f', label: 'data(label)',
        'text-wrap': 'wrap', 'text-valign': 'center', 'text-halign': 'center', 'font-size': 14, color: '#1d2733' } },
      { selector: 'node.learned', style: { 'background-color': '#ddf4ff', 'border-color': '#1f6feb', 'border-width': 2 } },
      { selector: 'node.namespace', style: { shape: 'round-rectangle', 'background-color': '#f6f8fa',
        'background-opacity': 1, 'border-width': 1, 'border-style': 'dashed', 'border-color': '#6e7781',
        label: 'data(label)', 'text-valign': 'top', 'text-halign': 'center', 'font-size': 16, 'font-weight': 'bold',
        // The name over an open namespace is where a reader clicks to close it.
        color: '#4a5866', padding: '24px', 'text-events': 'yes' } },
      { selector: 'node.namespace.collapsed', style: { width: 'label', height: 'label', padding: '12px',
        'text-valign': 'center', 'text-wrap': 'wrap', 'border-style': 'solid', 'border-width': 2,
        'background-color': '#eef1f4', color: '#1d2733' } },
      { selector: 'edge', style: { width: 2, 'line-color': '#57606a', 'target-arrow-color': '#57606a',
        'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(label)', 'text-wrap': 'wrap',
        'font-size': 12, 'text-background-color': '#ffffff', 'text-background-opacity': 0.9,
        'text-background-padding': '2px', color: '#1d2733' } },
      { selector: 'edge.grouped', style: { label: '', width: 'mapData(count, 1, 50, 1, 8)', 'line-color': '#8c959f',
        'target-arrow-color': '#8c959f', opacity: 0.7 } },
      { selector: 'node.monitor', style: { 'border-color': '#9a6700', 'border-width': 2 } },
      { selector: 'node.protect', style: { 'border-color': '#1a7f37', 'border-width': 3 } },
      { selector: 'edge.allowed', style: { 'line-color': '#1f6feb', 'target-arrow-color': '#1f6feb',
        'line-style': 'dashed' } },
      { selector: 'edge.violation', style: { width: 3, 'line-color': '#cf222e', 'target-arrow-color': '#cf222e',
        color: '#cf222e', 'font-weight': 'bold', 'text-background-opacity': 0.6 } },
      { selector: 'node.selected-workload', style: { 'border-color': '#bf3989', 'border-width': 3 } },
      { selector: 'node.match', style: { 'background-color': '#fff8c5', 'border-color': '#9a6700', 'border-width': 3 } }
    ]
  });

  // Namespaces side by side in rows (the outside world last), each a grid of its workloads in name
  // order: linear in the workloads, the same picture on every open, and no workload hides another.
  function groupedPositions() {
    var GAP = 48, PAD = 40, SPACE = 64, positions = {}, groups = [];
    cy.nodes('.namespace').forEach(function (g) {
      var kids = g.children().sort(function (a, b) { return a.id() < b.id() ? -1 : 1; });
      if (!kids.length) { groups.push({ node: g, w: g.outerWidth(), h: g.outerHeight(), kids: kids }); return; }
      var cw = 0, ch = 0;
      kids.forEach(function (k) { cw = Math.max(cw, k.outerWidth()); ch = Math.max(ch, k.outerHeight()); });
      var cols = Math.max(1, Math.ceil(Math.sqrt(kids.length * 2 * ch / cw)));
      var rows = Math.ceil(kids.length / cols);
      groups.push({ node: g, kids: kids, cols: cols, cw: cw + GAP, ch: ch + GAP,
        w: cols * (cw + GAP) + PAD, h: rows * (ch + GAP) + PAD + 24 });
    });
    // The filtered namespace first (the top left is what a large graph opens on), the outside world last.
    function rank(g) { var ns = g.node.data('namespace'); return ns === filter.namespace ? 0 : ns === OUTSIDE ? 2 : 1; }
    groups.sort(function (a, b) { return rank(a) - rank(b) || byName(a.node.data('namespace'), b.node.data('namespace')); });
    var area = 0, widest = 0;
    groups.forEach(function (g) { area += (g.w + SPACE) * (g.h + SPACE); widest = Math.max(widest, g.w); });
    // Rows as wide as the graph's box is wide relative to its height, so the fit fills it.
    var rowWidth = Math.max(widest, Math.sqrt(area * Math.max(1, cy.width() / Math.max(1, cy.height()))));
    var x = 0, y = 0, rowH = 0;
    groups.forEach(function (g) {
      if (x > 0 && x + g.w > rowWidth) { x = 0; y += rowH + SPACE; rowH = 0; }
      if (!g.kids.length) {
        positions[g.node.id()] = { x: x + g.w / 2, y: y + g.h / 2 };
      } else {
        g.kids.forEach(function (k, i) {
          positions[k.id()] = { x: x + PAD / 2 + (i % g.cols + 0.5) * g.cw, y: y + PAD / 2 + 24 + (Math.floor(i / g.cols) + 0.5) * g.ch };
        });
      }
      x += g.w + SPACE;
      rowH = Math.max(rowH, g.h);
    });
    return positions;
  }

  function layout() {
    // The text above the graph may have changed height: Cytoscape must not map clicks with an old offset.
    cy.resize();
    var positions = groupedPositions();
    cy.layout({ name: 'preset', animate: false, fit: false,
      positions: function (n) { return positions[n.id()]; } }).run();
    fitReadable();
  }

  // Fit the graph in view, but never so small that a workload's name drops below MIN_FONT_PX:
  // then show the top left at the smallest readable zoom and let the reader pan.
  function fitReadable() {
    if (!cy.elements().length) { return; }
    cy.fit(cy.elements(), 30);
    // The smallest label font in the style (edges') decides.
    var readable = (MIN_FONT_PX + 0.5) / 12;
    if (cy.zoom() < readable) {
      var box = cy.elements().boundingBox();
      cy.zoom(readable);
      cy.pan({ x: 30 - box.x1 * readable, y: 30 - box.y1 * readable });
    }
  }

  function render() {
    var t0 = performance.now();
    var view = shown();
    cy.batch(function () {
      cy.elements().remove();
      cy.add(elementsInView(view));
      if (filter.query) {
        cy.nodes('.workload').forEach(function (n) { n.toggleClass('match', passes(n.id())); });
      }
    });
    var t1 = performance.now();
    layout();
    timings.elementsMs = Math.round(t1 - t0);
    timings.layoutMs = Math.round(performance.now() - t1);
    return view;
  }

  function applyFilters() {
    var t0 = performance.now();
    var view = render();
    var rows = document.querySelectorAll('#rules tbody tr');
    var shownRows = 0;
    rows.forEach(function (r) {
      var show = passes(r.dataset.workload) || passes(r.dataset.peer);
      r.hidden = !show;
      if (show) { shownRows++; }
    });
    var collapsed = cy.nodes('.namespace.collapsed').length;
    document.getElementById('filter-status').textContent = Object.keys(view.nodes).length + ' of '
      + data.workloads.length + ' workloads, ' + view.edges.length + ' of ' + data.connections.length
      + ' connections, ' + shownRows + ' of ' + rows.length + ' rule ports shown'
      + (collapsed ? ' \u00b7 ' + collapsed + ' namespaces collapsed: click one to open it' : '');
    timings.filterMs = Math.round(performance.now() - t0);
  }

  function toggleNamespace(ns) {
    var node = cy.getElementById('namespace:' + ns);
    state.collapsed[ns] = !node.hasClass('collapsed');
    applyFilters();
  }
  function setAllCollapsed(value) {
    cy.nodes('.namespace').forEach(function (n) { state.collapsed[n.data('namespace')] = value; });
    applyFilters();
  }

  function ruleRows() {
    var body = document.querySelector('#rules tbody');
    data.proposals.forEach(function (p) {
      p.rules.forEach(function (r) {
        var ports = r.ports.length ? r.ports : [null];
        ports.forEach(function (port) {
          var tr = document.createElement('tr');
          tr.dataset.workload = p.workload;
          tr.dataset.peer = r.peerWorkload;
          tr.dataset.port = port ? portLabel(port) : '';
          [shortName(p.workload), p.direction, r.peer, r.description, port ? portLabel(port) : '-',
            port ? port.count : '', port ? port.firstSeen : '', port ? port.lastSeen : '', p.namespace + '/' + p.name]
            .forEach(function (v, i) { tr.appendChild(el('td', v, i === 5 ? 'num' : (i === 2 || i === 3 ? 'mono' : ''))); });
          body.appendChild(tr);
        });
      });
    });
  }

  function droppedRows() {
    var body = document.querySelector('#dropped tbody');
    if (!data.dropped.length) {
      var tr = document.createElement('tr');
      var td = el('td', 'Nothing was dropped.');
      td.colSpan = 4;
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    data.dropped.forEach(function (d) {
      var tr = document.createElement('tr');
      tr.dataset.reason = d.reason;
      tr.appendChild(el('td', d.stage));
      tr.appendChild(el('td', d.reason, 'mono'));
      tr.appendChild(el('td', d.count, 'num'));
      tr.appendChild(el('td', d.samples.length ? d.samples.join('\n') : 'no sample kept at this stage',
        d.samples.length ? 'mono' : 'muted'));
      body.appendChild(tr);
    });
  }

  function showDetails(id) {
    var w = byId[id];
    var box = document.getElementById('details');
    box.replaceChildren();
    box.appendChild(el('h3', w.namespace + '/' + w.name));
    box.appendChild(el('div', w.kind + (w.learned ? '' : ' (peer only: no proposal of its own)'), 'muted'));
    if (live && modeLine(id)) { box.appendChild(el('div', 'Mode: ' + modeLine(id), 'modes')); }
    ['Ingress', 'Egress'].forEach(function (direction) {
      policies.filter(function (p) { return p.workload === id && p.direction === direction; }).forEach(function (p) {
        box.appendChild(el('h4', direction + ' policy ' + p.name));
        var info = el('div', null, 'policy');
        info.dataset.direction = direction;
        info.appendChild(el('div', 'mode ' + p.mode, 'mode-' + p.mode));
        info.appendChild(el('div', p.activeViolations + ' active violations, ' + p.violationCount + ' seen in all'
          + (p.promotedFrom ? ' \u00b7 promoted from ' + p.promotedFrom : '')));
        var vs = el('ul');
        violations.filter(function (v) { return v.policy === p.namespace + '/' + p.name; }).forEach(function (v) {
          var li = el('li', null, 'violation');
          li.appendChild(el('div', '#' + v.id + ' ' + shortName(v.source) + ' \u2192 ' + shortName(v.target) + ' '
            + portAndRequest(v) + ' (' + v.action + '), last ' + v.lastSeen));
          li.appendChild(commandList([v.acknowledge]));
          vs.appendChild(li);
        });
        info.appendChild(vs);
        info.appendChild(commandList(p.commands));
        box.appendChild(info);
      });
      data.proposals.filter(function (p) { return p.workload === id && p.direction === direction; })
        .forEach(function (p) {
          box.appendChild(el('h4', direction + ' proposal ' + p.name));
          var list = el('ul');
          list.className = 'proposal';
          list.dataset.direction = direction;
          p.rules.forEach(function (r) {
            var li = el('li', null, 'rule');
            li.appendChild(el('div', (direction === 'Ingress' ? 'from ' : 'to ') + shortName(r.peerWorkload)));
            if (r.description) { li.appendChild(el('div', r.description, 'mono')); }
            var ports = el('ul');
            r.ports.forEach(function (port) {
              ports.appendChild(el('li', portLabel(port) + ': ' + port.count + ' seen, first ' + port.firstSeen
                + ', last ' + port.lastSeen + (port.seenAs ? ' (seen as ' + port.seenAs.join(', ') + ')' : ''),
                'evidence'));
            });
            li.appendChild(ports);
            list.appendChild(li);
          });
          box.appendChild(list);
          if (p.commands && p.commands.length) { box.appendChild(commandList(p.commands)); }
        });
    });
    var asPeer = [];
    data.proposals.forEach(function (p) {
      p.rules.forEach(function (r) { if (r.peerWorkload === id) { asPeer.push(p.direction + ' of ' + shortName(p.workload)); } });
    });
    if (asPeer.length) {
      box.appendChild(el('h4', 'Allowed as a peer in'));
      var ul = el('ul');
      asPeer.forEach(function (s) { ul.appendChild(el('li', s)); });
      box.appendChild(ul);
    }
  }

  function liveRows() {
    document.getElementById('live-view').hidden = false;
    document.getElementById('dropped-view').hidden = true;
    var body = document.querySelector('#policies tbody');
    policies.forEach(function (p) {
      var tr = document.createElement('tr');
      tr.dataset.workload = p.workload;
      tr.dataset.policy = p.namespace + '/' + p.name;
      [p.namespace + '/' + p.name, shortName(p.workload), p.direction, p.mode, p.activeViolations, p.violationCount]
        .forEach(function (v, i) { tr.appendChild(el('td', v, i === 3 ? 'mode-' + p.mode : (i > 3 ? 'num' : ''))); });
      var td = el('td');
      td.appendChild(commandList(p.commands));
      tr.appendChild(td);
      body.appendChild(tr);
    });
    data.proposals.forEach(function (p) {
      var tr = document.createElement('tr');
      tr.dataset.workload = p.workload;
      tr.dataset.proposal = p.namespace + '/' + p.name;
      [p.namespace + '/' + p.name + ' (proposal)', shortName(p.workload), p.direction, 'learning', '', '']
        .forEach(function (v, i) { tr.appendChild(el('td', v, i === 3 ? 'mode-learning' : (i > 3 ? 'num' : ''))); });
      var td = el('td');
      td.appendChild(commandList(p.commands || []));
      tr.appendChild(td);
      body.appendChild(tr);
    });
    var vbody = document.querySelector('#violations tbody');
    violations.forEach(function (v) {
      var tr = document.createElement('tr');
      tr.className = 'violation';
      tr.dataset.workload = v.target;
      tr.dataset.peer = v.source;
      [v.policy, v.id, shortName(v.source), shortName(v.target), portAndRequest(v), v.action, v.lastSeen]
        .forEach(function (x, i) { tr.appendChild(el('td', x, i === 1 ? 'num' : '')); });
      var td = el('td');
      td.appendChild(commandList([v.acknowledge]));
      tr.appendChild(td);
      vbody.appendChild(tr);
    });
  }

  // A refused HTTP request names its method and path after the port.
  function portAndRequest(v) {
    return v.protocol + '/' + v.port + (v.request ? ' ' + v.request : '');
  }

  function showView(table) {
    document.getElementById('table-view').hidden = !table;
    document.getElementById('graph-view').hidden = table;
    document.getElementById('show-table').setAttribute('aria-pressed', String(table));
    document.getElementById('show-graph').setAttribute('aria-pressed', String(!table));
    if (!table) { cy.resize(); applyFilters(); }
  }

  ruleRows();
  if (live) { liveRows(); } else { droppedRows(); }
  var select = document.getElementById('namespace-filter');
  namespaces().forEach(function (ns) { var o = el('option', ns); o.value = ns; select.appendChild(o); });
  select.addEventListener('change', function () { filter.namespace = select.value; applyFilters(); });
  var search = document.getElementById('search');
  search.addEventListener('input', function () { filter.query = search.value.trim().toLowerCase(); applyFilters(); });
  document.getElementById('show-graph').addEventListener('click', function () { showView(false); });
  document.getElementById('show-table').addEventListener('click', function () { showView(true); });
  document.getElementById('expand-all').addEventListener('click', function () { setAllCollapsed(false); });
  document.getElementById('collapse-all').addEventListener('click', function () { setAllCollapsed(true); });
  // A tap on a namespace's box (not on a workload in it; taps bubble to the parent) opens or closes it.
  cy.on('tap', 'node.namespace', function (evt) {
    if (evt.target.hasClass('namespace')) { toggleNamespace(evt.target.data('namespace')); }
  });
  cy.on('tap', 'node.workload', function (evt) {
    cy.nodes().removeClass('selected-workload');
    evt.target.addClass('selected-workload');
    showDetails(evt.target.id());
  });
  // Paper gets a picture of the graph, since a canvas does not print reliably.
  window.addEventListener('beforeprint', function () {
    document.getElementById('graph-print').src = cy.png({ full: true, scale: 2, bg: '#ffffff' });
  });
  applyFilters();
  timings.scriptMs = Math.round(performance.now() - scriptStart);
  // The first frame with the graph drawn: from the start of navigation, as the reader waits for it.
  requestAnimationFrame(function () { setTimeout(function () { timings.firstRenderMs = Math.round(performance.now()); }, 0); });

  // For people poking around in the console and for the browser tests.
  window.networkEnforcerReport = {
    cy: cy,
    data: data,
    timings: timings,
    // Workloads drawn as nodes (not those inside a collapsed namespace).
    visibleWorkloads: function () { return cy.nodes('.workload').map(function (n) { return n.id(); }); },
    // Workloads the filters let through, whether drawn or inside a collapsed namespace.
    shownWorkloads: function () { return Object.keys(shown().nodes).sort(); },
    visibleConnections: function () { return cy.edges().not('.grouped').map(function (e) { return e.id(); }); },
    collapsedNamespaces: function () {
      return cy.nodes('.namespace.collapsed').map(function (n) { return n.data('namespace'); });
    },
    toggleNamespace: toggleNamespace,
    showDetails: showDetails
  };
}());
