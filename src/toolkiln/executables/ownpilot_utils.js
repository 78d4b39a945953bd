// toolkiln's `utils` for OwnPilot's custom tools: helpers of the names OwnPilot documents,
// written for toolkiln (docs/migrating.md#ownpilot lists them and where they differ).
// Put before an imported tool's code by executables/ownpilot_js.py; API_KEYS and NETWORK
// are defined before it.
const utils = (() => {
  const crypto = require("crypto");
  const words = (text) => String(text).match(/[\p{L}\p{N}]+/gu) || [];
  const splitWords = (text) =>
    String(text)
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      .match(/[\p{L}\p{N}]+/gu) || [];
  const removeDiacritics = (text) => String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").normalize("NFC");
  const isJson = (text) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  const parseCsvRows = (text, delimiter) => {
    const rows = [];
    let row = [];
    let field = "";
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
        else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"' && field === "") quoted = true;
      else if (c === delimiter) row.push(field), (field = "");
      else if (c === "\n" || c === "\r") {
        if (c === "\r" && text[i + 1] === "\n") i++;
        row.push(field), rows.push(row), (row = []), (field = "");
      } else field += c;
    }
    if (field !== "" || row.length) row.push(field), rows.push(row);
    return rows.filter((r) => !(r.length === 1 && r[0].trim() === ""));
  };
  const numbers = (values) => values.map(Number).filter((v) => !Number.isNaN(v));
  return Object.freeze({
    uuid: () => crypto.randomUUID(),
    now: () => new Date().toISOString(),
    randomInt: (min, max) => crypto.randomInt(Math.ceil(min), Math.floor(max) + 1),
    sleep: (ms) => new Promise((done) => setTimeout(done, Math.min(Number(ms) || 0, 5000))),
    slugify: (text) =>
      removeDiacritics(text)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, ""),
    camelCase: (text) =>
      splitWords(text)
        .map((w, i) => (i ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase()))
        .join(""),
    snakeCase: (text) => splitWords(text).map((w) => w.toLowerCase()).join("_"),
    kebabCase: (text) => splitWords(text).map((w) => w.toLowerCase()).join("-"),
    capitalize: (text) => String(text).charAt(0).toUpperCase() + String(text).slice(1),
    truncate: (text, max = 100, suffix = "...") => {
      const chars = Array.from(String(text));
      return chars.length <= max ? String(text) : chars.slice(0, Math.max(0, max - suffix.length)).join("") + suffix;
    },
    countWords: (text) => words(text).length,
    removeDiacritics,
    isJson,
    parseJson: (text) => (isJson(text) ? JSON.parse(text) : null),
    toJson: (value, indent) => JSON.stringify(value, null, indent),
    isUuid: (text) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(String(text)),
    isEmail: (text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(text)),
    isUrl: (text) => {
      try {
        return ["http:", "https:"].includes(new URL(String(text)).protocol);
      } catch {
        return false;
      }
    },
    chunk: (items, size) => {
      const out = [];
      for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
      return out;
    },
    unique: (items) => [...new Set(items)],
    flatten: (items) => items.flat(Infinity),
    sum: (values) => numbers(values).reduce((a, b) => a + b, 0),
    avg: (values) => {
      const found = numbers(values);
      return found.length ? found.reduce((a, b) => a + b, 0) / found.length : 0;
    },
    round: (value, digits = 0) => Number(Math.round(Number(value + "e" + digits)) + "e-" + digits),
    parseCsv: (text, delimiter = ",") => {
      const [header, ...rows] = parseCsvRows(String(text), delimiter);
      if (!header) return [];
      const keys = header.map((k) => k.trim());
      return rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, (r[i] ?? "").trim()])));
    },
    urlEncode: (text) => encodeURIComponent(String(text)),
    urlDecode: (text) => decodeURIComponent(String(text)),
    base64Encode: (text) => Buffer.from(String(text), "utf8").toString("base64"),
    base64Decode: (text) => Buffer.from(String(text), "base64").toString("utf8"),
    sha256: (text) => crypto.createHash("sha256").update(String(text)).digest("hex"),
    getApiKey: (name) => {
      const variable = API_KEYS[name];
      return (variable && process.env[variable]) || null;
    },
    callTool: async (name) => {
      throw new Error(`utils.callTool('${name}'): a toolkiln script cannot call other tools; use a workflow`);
    },
  });
})();
