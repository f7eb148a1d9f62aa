// What a launcher does with the forgesync daemon, in TypeScript: it prints
// the daemon's status and folders, installs an archive by sending it as the
// body of POST /v1/install, lists the installed packs and reads the served
// contract. With --join it does the join flow for one server instead (the
// README's "For launchers: join a server's set"): stage the server's set
// unless the machine has it, then apply it by fingerprint; --leave switches
// back to the player's own packs.
//
//   npm ci && npm run build
//   node build/launcher.js --socket /var/lib/forgesync/forgesync.sock [--install pack.zip]
//   node build/launcher.js --socket … --join https://forge.example.org/ --fingerprint sha256:… [--trust RW…]
//   node build/launcher.js --socket … --leave
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
type FingerprintCheck = components["schemas"]["SetFingerprintCheck"];
type StageRequest = components["schemas"]["SetStageRequest"];
type StageResult = components["schemas"]["SetStageResult"];
type SyncResult = components["schemas"]["SetSyncResult"];

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

  /** check asks how a server's set stands on this machine (the server list). */
  check(fingerprint: string): Promise<FingerprintCheck> {
    return this.#call("GET", `/v1/set/check?fingerprint=${encodeURIComponent(fingerprint)}`);
  }

  /** stage fetches and keeps a set without changing what is installed (hover, lobby). */
  stage(req: StageRequest): Promise<StageResult> {
    return this.#call("POST", "/v1/set/stage", { body: new Blob([JSON.stringify(req)]), contentType: "application/json" });
  }

  /** apply switches to a staged set by its fingerprint, with no network (join). */
  apply(fingerprint: string): Promise<SyncResult> {
    return this.#call("POST", "/v1/set/apply", { body: new Blob([JSON.stringify({ fingerprint })]), contentType: "application/json" });
  }

  /** switchTo makes a profile current, from kept archives (leave: "own"). */
  switchTo(name: string): Promise<Summary> {
    return this.#call("POST", "/v1/profile/switch", { body: new Blob([JSON.stringify({ name })]), contentType: "application/json" });
  }

  /** contract returns the OpenAPI document the daemon serves. */
  contract(): Promise<{ openapi: string; paths: Record<string, unknown> }> {
    return this.#call("GET", "/v1/openapi.json");
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** join makes the machine's packs a server's set: staged unless it is on the machine, then applied by fingerprint. */
async function join(d: Daemon, url: string, fingerprint: string, trust?: string): Promise<void> {
  const st = await d.check(fingerprint);
  if (st.current) {
    console.log(`the machine has the set ${fingerprint}: join`);
    return;
  }
  if (!st.staged) {
    const res = await d.stage(trust ? { url, key: trust } : { url });
    if (res.fingerprint !== fingerprint) {
      throw new Error(`${url} serves the set ${res.fingerprint}, not the ${fingerprint} the server advertises`);
    }
    console.log(`staged ${res.fingerprint} as profile ${res.name}: ${res.bytes} bytes fetched, ${res.set_bytes} in all`);
  }
  const res = await d.apply(fingerprint);
  console.log(`switched to ${fingerprint} (${res.check.source}), ${res.downloaded.length} downloads: join`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      socket: { type: "string" },
      install: { type: "string" },
      join: { type: "string" },
      fingerprint: { type: "string" },
      trust: { type: "string" },
      leave: { type: "boolean" },
    },
  });
  if (!values.socket) {
    throw new Error("give --socket PATH (<state>/forgesync.sock) and optionally --install ARCHIVE");
  }
  const d = new Daemon(values.socket);
  if (values.join || values.leave) {
    try {
      if (values.leave) {
        await d.switchTo("own");
        console.log("switched back to profile own");
      } else if (!values.fingerprint) {
        throw new Error("--join needs --fingerprint, the set the server advertises");
      } else {
        await join(d, values.join!, values.fingerprint, values.trust);
      }
    } finally {
      await d.close();
    }
    return;
  }
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
