// A JSON text whose object repeats a member name: JSON.parse keeps the last, a node's parser may keep the first. The
// proxy validates the parsed calls but forwards the bytes as sent (re-serialising would round numbers past 2^53), so a
// body with `"method"` twice could pass as eth_call and reach the node as admin_addPeer (issue 28). Such bodies are
// refused. Names are compared decoded, so `"\u006dethod"` is `"method"`.

/** The first member name an object of `text` (valid JSON) repeats, or undefined. */
export function duplicateKey(text: string): string | undefined {
  const objects: (Set<string> | null)[] = []; // one entry per open brace or bracket: the object's names, or null
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) objects.push(new Set());
    else if (c === 0x5b /* [ */) objects.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) objects.pop();
    else if (c === 0x22 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      const names = objects.at(-1);
      if (names) {
        let k = j + 1;
        while (k < text.length && /\s/.test(text[k])) k++;
        if (text[k] === ':') {
          const name = JSON.parse(text.slice(i, j + 1)) as string;
          if (names.has(name)) return name;
          names.add(name);
        }
      }
      i = j;
    }
  }
  return undefined;
}
