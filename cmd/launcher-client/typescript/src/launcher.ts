// What a launcher does with the forgesync daemon, in TypeScript: it prints
// the daemon's status and folders, installs an archive by sending it as the
// body of POST /v1/install, lists the installed packs and reads the served
// contract.
//
//   npm ci && npm run build
//   node build/launcher.js --socket /var/lib/forgesync/forgesync.sock [--install pack.zip]
//
// The types come from api/openapi.yaml through openapi-typescript
// (src/forgesync.d.ts; `npm run generate` after a change to the document).
//
// The socket is HTTP/1.1 over AF_UNIX. Node's global fetch takes no
// `socketPath` (that is http.request's option, and fetch ignores it, going
// to the host in the URL instead): it needs an undici dispatcher whose
// connect option dials the socket. The host name in the URL is then never
// looked up; any name works.

import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { parseArgs } from "node:util";
import { Agent } from "undici";
import type { components, paths } from "./forgesync.js";

type Status = components["schemas"]["Status"];
type Summary = components["schemas"]["Summary"];
type ErrorBody = components["schemas"]["Error"];
type PacksAnswer = paths["/v1/packs"]["get"]["responses"]["200"]["content"]["application/json"];

// The Content-Type of an archive, by its name; the daemon decides the
// format by the bytes, so application/octet-stream fits any archive.
const archiveTypes: Record<string, string> = {
  ".zip": "application/zip",
  ".7z": "application/x-7z-compressed",
  ".tar": "application/x-tar",
  ".zst": "application/zstd",
};

/** Daemon is a client of the forgesync daemon's socket. */
class Daemon {
  readonly #agent: Agent;

  constructor(socketPath: string) {
    this.#agent = new Agent({ connect: { socketPath } });
  }

  /** call sends one request and returns the decoded answer, or throws the daemon's error. */
  async #call<T>(method: string, path: string, init: { body?: Blob; contentType?: string } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (init.contentType) {
      headers["Content-Type"] = init.contentType;
    }
    const res = await fetch(`http://forgesync${path}`, {
      method,
      headers,
      body: init.body,
      // The socket: without this, fetch would dial forgesync:80.
      dispatcher: this.#agent,
    });
    const body: unknown = await res.json();
    if (!res.ok) {
      const e = (body as ErrorBody).error;
      throw new Error(`${method} ${path}: ${res.status} ${e.code}: ${e.message}`);
    }
    return body as T;
  }

  status(): Promise<Status> {
    return this.#call("GET", "/v1/status");
  }

  async packs(): Promise<PacksAnswer["packs"]> {
    return (await this.#call<PacksAnswer>("GET", "/v1/packs")).packs;
  }

  /** install sends the archive at file as the body of POST /v1/install. */
  async install(file: string): Promise<Summary> {
    const name = basename(file);
    const body = new Blob([await readFile(file)]);
    const contentType = archiveTypes[extname(name).toLowerCase()] ?? "application/octet-stream";
    return this.#call("POST", `/v1/install?name=${encodeURIComponent(name)}`, { body, contentType });
  }

  /** contract returns the OpenAPI document the daemon serves. */
  contract(): Promise<{ openapi: string; paths: Record<string, unknown> }> {
    return this.#call("GET", "/v1/openapi.json");
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { socket: { type: "string" }, install: { type: "string" } } });
  if (!values.socket) {
    throw new Error("give --socket PATH (<state>/forgesync.sock) and optionally --install ARCHIVE");
  }
  const d = new Daemon(values.socket);
  try {
    const st = await d.status();
    console.log(`forgesync ${st.version} (pid ${st.pid}): ${st.state}, generation ${st.generation}`);
    console.log(`drop folder: ${st.folders.drop}`);
    console.log(`inventory folder: ${st.folders.inventory}`);
    if (values.install) {
      const sum = await d.install(values.install);
      for (const o of sum.outcomes) {
        const why = (o.reasons ?? []).map((r) => `; ${r.file ? r.file + ": " : ""}${r.message}`).join("");
        console.log(`install ${o.archive}: ${o.pack ?? "?"} ${o.version ?? ""} ${o.result}${why} (${sum.duration_s.toFixed(3)} s)`);
      }
    }
    for (const p of await d.packs()) {
      console.log(`pack ${p.id} ${p.version} ${p.enabled ? "enabled" : "disabled"}: ${p.piece_count} pieces`);
    }
    const doc = await d.contract();
    console.log(`contract: OpenAPI ${doc.openapi}, ${Object.keys(doc.paths).length} paths`);
  } finally {
    await d.close();
  }
}

main().catch((err: unknown) => {
  console.error(`launcher: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
