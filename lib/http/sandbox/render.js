// The sandbox's own script (served at /sandbox/render.js, run only inside /sandbox/render). The chat page frames that
// page with sandbox="allow-scripts" (no allow-same-origin), so this runs in an opaque origin: no cookies, no storage,
// no access to the page that framed it, and its policy (lib/http/sandbox.ts) lets it connect nowhere. It waits for
// one message from its parent, { 'lagoon-sandbox': true, type: 'render', kind: 'mermaid' | 'html', source, theme },
// draws it, and tells the parent how tall it is ({ type: 'size', height }) whenever that changes. It answers only
// its parent, and renders once: a document that navigated away or a second message changes nothing.
(() => {
  const TAG = 'lagoon-sandbox';
  const VERSION = document.currentScript?.dataset.mermaid ?? '';
  const post = (message) => parent.postMessage({ [TAG]: true, ...message }, '*');
  let last = -1;
  const report = () => {
    const root = document.documentElement;
    const height = Math.ceil(Math.max(root.scrollHeight, root.getBoundingClientRect().height, document.body?.scrollHeight ?? 0));
    if (height === last) return;
    last = height;
    post({ type: 'size', height });
  };
  const watch = () => {
    const observer = new ResizeObserver(report);
    observer.observe(document.documentElement);
    if (document.body) observer.observe(document.body);
    report();
  };
  const fail = (what) => {
    const out = document.getElementById('out');
    if (out) {
      out.className = 'error';
      out.textContent = what;
    }
    post({ type: 'rendered', ok: false, error: what });
    report();
  };

  function renderMermaid(source, dark) {
    const script = document.createElement('script');
    script.src = `/sandbox/mermaid.js?v=${encodeURIComponent(VERSION)}`;
    script.onerror = () => fail('The diagram renderer could not be loaded.');
    script.onload = async () => {
      try {
        const mermaid = globalThis.mermaid;
        // 'strict': the diagram's labels are text (sanitised), click handlers and scripts are dropped.
        mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: dark ? 'dark' : 'default', fontFamily: 'system-ui, sans-serif' });
        const { svg } = await mermaid.render('lagoon-diagram', source);
        const out = document.getElementById('out');
        out.innerHTML = svg;
        const drawn = out.querySelector('svg');
        drawn?.setAttribute('role', 'img');
        drawn?.setAttribute('aria-label', 'Diagram');
        post({ type: 'rendered', ok: true });
        report();
      } catch (e) {
        fail(`This diagram could not be drawn: ${String(e?.message ?? e).slice(0, 500)}`);
      }
    };
    document.head.appendChild(script);
  }

  function renderHtml(source) {
    // The answer's page replaces this one (its scripts run, under this document's policy, in this opaque origin).
    document.open();
    document.write(source);
    document.close();
    watch();
    post({ type: 'rendered', ok: true });
  }

  let done = false;
  addEventListener('message', (e) => {
    if (done || e.source !== parent) return;
    const m = e.data;
    if (!m || m[TAG] !== true || m.type !== 'render' || typeof m.source !== 'string') return;
    done = true;
    if (m.kind === 'mermaid') renderMermaid(m.source, m.theme === 'dark');
    else if (m.kind === 'html') renderHtml(m.source);
    else fail('Nothing to show.');
  });
  watch();
  post({ type: 'ready' });
})();
