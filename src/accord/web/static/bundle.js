"use strict";
// The static site written by `accord view bundle` (accord/web/bundle.py): stands in for the
// JSON API of `accord serve`. Each answer was saved as data/<key>.js, a script that hands its
// payload to put() or putGz(); a script element can load it from file:// where fetch() cannot.
// <key> is the 64-bit FNV-1a hash (hex) of the request path with its escapes decoded and its
// query fields sorted, computed exactly as bundle_key() does in Python. Loaded only by the
// bundle's index.html; app.js asks ACCORD_BUNDLE when it is defined.

(function () {
  const FNV_OFFSET = 0xcbf29ce484222325n;
  const FNV_PRIME = 0x100000001b3n;
  const MASK = 0xffffffffffffffffn;
  const loaded = new Map(); // key -> Promise of the parsed payload
  const waiting = new Map(); // key -> { resolve, reject } while its script loads

  function canonical(path) {
    const at = path.indexOf("?");
    const base = at < 0 ? path : path.slice(0, at);
    let canon = decodeURIComponent(base);
    if (at >= 0) {
      const pairs = [...new URLSearchParams(path.slice(at + 1)).entries()];
      pairs.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
      if (pairs.length) canon += "?" + pairs.map(([k, v]) => `${k}=${v}`).join("&");
    }
    return canon;
  }

  function key(path) {
    let h = FNV_OFFSET;
    for (const byte of new TextEncoder().encode(canonical(path))) h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK;
    return h.toString(16).padStart(16, "0");
  }

  async function inflate(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function settle(k, value) {
    const w = waiting.get(k);
    if (!w) return;
    waiting.delete(k);
    Promise.resolve(value).then(w.resolve, w.reject);
  }

  function load(path) {
    const k = key(path);
    if (!loaded.has(k)) {
      loaded.set(k, new Promise((resolve, reject) => {
        waiting.set(k, { resolve, reject });
        const script = document.createElement("script");
        script.src = `data/${k}.js`;
        script.onerror = () => {
          waiting.delete(k);
          loaded.delete(k);
          reject(new Error(`404: ${canonical(path)} is not part of this static site ` +
            "(left out when it was bundled: see accord view bundle --help)"));
        };
        script.onload = () => script.remove();
        document.head.append(script);
      }));
    }
    return loaded.get(k);
  }

  window.ACCORD_BUNDLE = {
    key,
    put(k, value) { settle(k, value); },
    putGz(k, b64) { settle(k, inflate(b64)); },
    // Same contract as app.js's api(): the parsed JSON, or an Error with the server's message.
    async get(path) {
      const value = await load(path);
      if (value && typeof value === "object" && "__error" in value) throw new Error(value.__error);
      return structuredClone(value);
    },
    asset(path) { return `data/${key(path)}.png`; },
  };
})();
