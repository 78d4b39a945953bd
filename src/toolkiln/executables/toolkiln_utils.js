// toolkiln's `utils` for JavaScript script tools: `const utils = require("toolkiln/utils")`.
// Helpers of the names OwnPilot documents, written for toolkiln (docs/executables.md lists
// them); `fetch` only in a run that has the network; `getApiKey` reads only declared secrets;
// `callTool` and the seeded `uuid`/`randomInt` ask toolkiln through the run's channel (two
// pipes the parent serves, executables/channel.py); `run(fn)`: arguments in, result out.
// The sandbox puts this file beside the program (node_modules/toolkiln/utils.js).
"use strict";
const utils = (() => {
  const crypto = require("crypto");
  const fs = require("fs");
  const env = process.env;
  const NETWORK = env.TOOLKILN_NETWORK === "1";
  const SECRETS = new Set((env.TOOLKILN_SECRETS || "").split(",").filter(Boolean));
  const CHANNEL = /^([0-9]+),([0-9]+)$/.exec(env.TOOLKILN_CHANNEL || ""); // requests fd, answers fd
  const SEEDED = CHANNEL !== null && env.TOOLKILN_SEEDED === "1";
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
  // One request to toolkiln, one answer: a JSON line each way on the run's two pipes, read
  // and written synchronously (a tool's calls happen one at a time).
  const closed = () =>
    new Error("toolkiln closed this run's channel (a request over its size, or more requests than a run may make)");
  let unread = Buffer.alloc(0);
  const ask = (request) => {
    if (CHANNEL === null) throw new Error("this run has no channel to toolkiln (a javascript script tool's run has one)");
    const [to, from] = [Number(CHANNEL[1]), Number(CHANNEL[2])];
    try {
      const line = Buffer.from(JSON.stringify(request) + "\n", "utf8");
      for (let done = 0; done < line.length; ) done += fs.writeSync(to, line, done);
      const part = Buffer.alloc(65536);
      while (!unread.includes(10)) {
        const got = fs.readSync(from, part, 0, part.length, null);
        if (got === 0) throw closed();
        unread = Buffer.concat([unread, part.subarray(0, got)]);
      }
    } catch (error) {
      throw error.code === "EPIPE" || error.code === "EBADF" ? closed() : error;
    }
    const end = unread.indexOf(10);
    const answer = JSON.parse(unread.subarray(0, end).toString("utf8"));
    unread = unread.subarray(end + 1);
    if (answer.ok) return answer.result;
    const failure = new Error(answer.message || "toolkiln refused the request");
    failure.code = answer.errors && answer.errors[0] ? answer.errors[0].code : undefined;
    failure.errors = answer.errors || [];
    if (answer.call) failure.call = answer.call; // a call kept for a person's approval
    throw failure;
  };
  // Node's own fetch (undici) needs WebAssembly, which --jitless turns off: a small fetch on
  // the http and https modules (`ok`, `status`, `headers.get`, `text()`, `json()`).
  const fetch = !NETWORK
    ? async () => {
        throw new Error("fetch needs the network permission, which this tool does not have");
      }
    : (url, options = {}) =>
        new Promise((resolve, reject) => {
          const target = new URL(String(url));
          const client = require(target.protocol === "https:" ? "https" : "http");
          const request = client.request(
            target,
            { method: options.method || "GET", headers: options.headers || {} },
            (response) => {
              const parts = [];
              response.on("data", (part) => parts.push(part));
              response.on("end", () => {
                const body = Buffer.concat(parts).toString("utf8");
                resolve({
                  ok: response.statusCode >= 200 && response.statusCode < 300,
                  status: response.statusCode,
                  statusText: response.statusMessage,
                  headers: { get: (name) => response.headers[String(name).toLowerCase()] ?? null },
                  text: async () => body,
                  json: async () => JSON.parse(body),
                });
              });
            },
          );
          request.on("error", reject);
          if (options.body !== undefined) request.write(String(options.body));
          request.end();
        });
  // A tool's whole program: read its arguments, run `fn`, print the result (console.log and
  // its kin go to stderr: stdout holds only the result); a thrown error fails the run.
  const run = (fn) => {
    for (const name of ["log", "info", "debug", "warn"]) console[name] = console.error;
    const args = JSON.parse(fs.readFileSync(0, "utf8") || "{}");
    Promise.resolve()
      .then(() => fn(args))
      .then(
        (value) => process.stdout.write(JSON.stringify(value === undefined ? null : value)),
        (error) => {
          process.stderr.write(String((error && error.stack) || error) + "\n");
          process.exitCode = 1;
        },
      );
  };
  return Object.freeze({
    uuid: () => (SEEDED ? ask({ draw: "uuid" }) : crypto.randomUUID()),
    now: () => new Date().toISOString(),
    randomInt: (min, max) =>
      SEEDED
        ? ask({ draw: "int", lo: Math.ceil(min), hi: Math.floor(max) })
        : crypto.randomInt(Math.ceil(min), Math.floor(max) + 1),
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
    // A declared secret of the name (weatherapi: the secret WEATHERAPI), else null.
    getApiKey: (name) => {
      const secret = String(name).toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
      return (SECRETS.has(secret) && env[secret]) || null;
    },
    callTool: async (name, args = {}) => ask({ call: String(name), args }),
    fetch,
    run,
  });
})();

module.exports = utils;
