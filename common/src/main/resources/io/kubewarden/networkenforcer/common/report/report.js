// The page of `network-enforcer learn|replay --report` and of the writer's live view: draws the
// report model (inlined as JSON) with Cytoscape.js and keeps the graph, the tables and the details
// panel in step with the filters. The live view's model also has policies, modes and violations.
(function () {
  'use strict';
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
  function modes(id) {
    var out = {};
    data.proposals.forEach(function (p) { if (p.workload === id) { out[p.direction] = 'learning'; } });
    policies.forEach(function (p) { if (p.workload === id) { out[p.direction] = p.mode; } });
    return out;
  }
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

  function namespaces() {
    var seen = {};
    data.workloads.forEach(function (w) { seen[w.namespace] = true; });
    return Object.keys(seen).sort();
  }

  function elements() {
    var out = [];
    namespaces().forEach(function (ns) {
      out.push({ group: 'nodes', data: { id: 'namespace:' + ns, label: ns, namespace: ns }, classes: 'namespace' });
    });
    data.workloads.forEach(function (w) {
      var m = modes(w.id), line = modeLine(w.id);
      var classes = w.learned ? 'workload learned' : 'workload';
      if (m.Ingress === 'protect' || m.Egress === 'protect') { classes += ' protect'; }
      else if (m.Ingress === 'monitor' || m.Egress === 'monitor') { classes += ' monitor'; }
      out.push({ group: 'nodes', data: { id: w.id, parent: 'namespace:' + w.namespace,
        label: w.name + '\n' + w.kind + (line ? '\n' + line : ''), namespace: w.namespace }, classes: classes });
    });
    data.connections.forEach(function (c) {
      var label = c.ports.map(countLabel).join('\n');
      if (c.kind === 'violation') { label = '\u26a0 ' + label + (c.lastSeen ? '\nlast ' + c.lastSeen : ''); }
      out.push({ group: 'edges', data: { id: c.id, source: c.source, target: c.target, label: label },
        classes: c.kind || 'learned' });
    });
    return out;
  }

  var cy = cytoscape({
    container: document.getElementById('graph'),
    elements: elements(),
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node.workload', style: { shape: 'round-rectangle', width: 'label', height: 'label', padding: '8px',
        'background-color': '#e6edf3', 'border-width': 1, 'border-color': '#8c959f', label: 'data(label)',
        'text-wrap': 'wrap', 'text-valign': 'center', 'text-halign': 'center', 'font-size': 12, color: '#1d2733' } },
      { selector: 'node.learned', style: { 'background-color': '#ddf4ff', 'border-color': '#1f6feb', 'border-width': 2 } },
      { selector: 'node.namespace', style: { shape: 'round-rectangle', 'background-color': '#f6f8fa',
        'background-opacity': 1, 'border-width': 1, 'border-style': 'dashed', 'border-color': '#6e7781',
        label: 'data(label)', 'text-valign': 'top', 'text-halign': 'center', 'font-size': 14, 'font-weight': 'bold',
        color: '#4a5866', padding: '24px' } },
      { selector: 'edge', style: { width: 2, 'line-color': '#57606a', 'target-arrow-color': '#57606a',
        'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(label)', 'text-wrap': 'wrap',
        'font-size': 11, 'text-background-color': '#ffffff', 'text-background-opacity': 0.9,
        'text-background-padding': '2px', color: '#1d2733' } },
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
  // Grid first so the force-directed layout starts from the same positions on every open.
  cy.layout({ name: 'grid', animate: false }).run();
  cy.layout({ name: 'cose', animate: false, randomize: false, nodeDimensionsIncludeLabels: true,
    // Violation edges get room for their longer label and stay visible beside it.
    idealEdgeLength: function (e) { return e.hasClass('violation') ? 300 : 160; }, nodeRepulsion: function () { return 600000; },
    componentSpacing: 120, padding: 30 }).run();

  function applyFilters() {
    var shownEdges = {}, shownNodes = {};
    data.connections.forEach(function (c) {
      if (connectionShown(c)) { shownEdges[c.id] = true; shownNodes[c.source] = true; shownNodes[c.target] = true; }
    });
    data.workloads.forEach(function (w) { if (passes(w.id)) { shownNodes[w.id] = true; } });
    cy.batch(function () {
      cy.nodes('.workload').forEach(function (n) {
        n.style('display', shownNodes[n.id()] ? 'element' : 'none');
        n.toggleClass('match', !!filter.query && passes(n.id()));
      });
      cy.edges().forEach(function (e) { e.style('display', shownEdges[e.id()] ? 'element' : 'none'); });
      cy.nodes('.namespace').forEach(function (n) {
        var any = n.children().some(function (c) { return shownNodes[c.id()]; });
        n.style('display', any ? 'element' : 'none');
      });
    });
    var visible = cy.elements().filter(function (e) { return e.style('display') !== 'none'; });
    if (visible.length) { cy.fit(visible, 30); }
    var rows = document.querySelectorAll('#rules tbody tr');
    var shownRows = 0;
    rows.forEach(function (r) {
      var show = passes(r.dataset.workload) || passes(r.dataset.peer);
      r.hidden = !show;
      if (show) { shownRows++; }
    });
    document.getElementById('filter-status').textContent = Object.keys(shownNodes).length + ' of '
      + data.workloads.length + ' workloads, ' + Object.keys(shownEdges).length + ' of ' + data.connections.length
      + ' connections, ' + shownRows + ' of ' + rows.length + ' rule ports shown';
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
            + v.protocol + '/' + v.port + ' (' + v.action + '), last ' + v.lastSeen));
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
                + ', last ' + port.lastSeen, 'evidence'));
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
      [v.policy, v.id, shortName(v.source), shortName(v.target), v.protocol + '/' + v.port, v.action, v.lastSeen]
        .forEach(function (x, i) { tr.appendChild(el('td', x, i === 1 ? 'num' : '')); });
      var td = el('td');
      td.appendChild(commandList([v.acknowledge]));
      tr.appendChild(td);
      vbody.appendChild(tr);
    });
  }

  function showView(table) {
    document.getElementById('table-view').hidden = !table;
    document.getElementById('graph-view').hidden = table;
    document.getElementById('show-table').setAttribute('aria-pressed', String(table));
    document.getElementById('show-graph').setAttribute('aria-pressed', String(!table));
    if (!table) { cy.resize(); applyFilters(); }
  }

  summary();
  ruleRows();
  if (live) { liveRows(); } else { droppedRows(); }
  var select = document.getElementById('namespace-filter');
  namespaces().forEach(function (ns) { var o = el('option', ns); o.value = ns; select.appendChild(o); });
  select.addEventListener('change', function () { filter.namespace = select.value; applyFilters(); });
  var search = document.getElementById('search');
  search.addEventListener('input', function () { filter.query = search.value.trim().toLowerCase(); applyFilters(); });
  document.getElementById('show-graph').addEventListener('click', function () { showView(false); });
  document.getElementById('show-table').addEventListener('click', function () { showView(true); });
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

  // For people poking around in the console and for the browser tests.
  window.networkEnforcerReport = {
    cy: cy,
    data: data,
    visibleWorkloads: function () {
      return cy.nodes('.workload').filter(function (n) { return n.style('display') !== 'none'; }).map(function (n) { return n.id(); });
    },
    visibleConnections: function () {
      return cy.edges().filter(function (e) { return e.style('display') !== 'none'; }).map(function (e) { return e.id(); });
    },
    showDetails: showDetails
  };
}());
