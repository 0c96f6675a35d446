// Incremental SSE parsing of an upstream body: yields each `data:` payload as soon as its event is complete.
// Hot path of every relayed stream (once per upstream chunk): the buffer is scanned with an index and cut once per
// chunk, not once per line.

export async function* sseData(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf('\n', start)) >= 0) {
      const end = nl > start && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl; // a CRLF line ends before its \r
      if (end === start) {
        if (data.length) yield data.length === 1 ? data[0] : data.join('\n');
        data = [];
      } else if (buf.startsWith('data:', start)) {
        data.push(buf.slice(buf.charCodeAt(start + 5) === 32 ? start + 6 : start + 5, end));
      }
      // comments (": keep-alive") and other fields are ignored
      start = nl + 1;
    }
    if (start > 0) buf = buf.slice(start);
  }
  if (data.length) yield data.join('\n');
}
