// Loads officeparser (and, through it, pdf.js) once, on first use.
//
// When pdf.js's module loads in Node it tries the optional `@napi-rs/canvas` package, which only page rendering needs,
// and where it is missing warns on stderr: `Cannot load "@napi-rs/canvas"…`, `Cannot polyfill DOMMatrix / Path2D…`.
// Lagoon only extracts text, which renders nothing (officeparser supplies the DOMMatrix that text positions use), so
// those exact warnings are dropped; pdf.js loads inside officeparser's first PDF parse, hence a lasting filter.
export type OfficeParserModule = typeof import('officeparser');

const CANVAS_WARNING = /^Warning: Cannot (load "@napi-rs\/canvas"|polyfill `(DOMMatrix|Path2D)`)/;

function dropCanvasWarnings(): void {
  // biome-ignore lint/suspicious/noConsole: the filter wraps the console that pdf.js writes to; it logs nothing itself.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && CANVAS_WARNING.test(args[0])) return;
    warn.apply(console, args);
  };
}

let loading: Promise<OfficeParserModule> | undefined;
let filtered = false;

/** officeparser, loaded once; a failed load is tried again on the next call. */
export function officeParser(): Promise<OfficeParserModule> {
  if (!loading) {
    if (!filtered) dropCanvasWarnings();
    filtered = true;
    loading = import('officeparser').catch((e) => {
      loading = undefined;
      throw e;
    });
  }
  return loading;
}
