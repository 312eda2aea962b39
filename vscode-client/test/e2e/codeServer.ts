/** Start code-server (VS Code 1.100 in the browser) on a free local port with its own profile folders. */

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as path from "node:path";

export interface CodeServer {
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    http.get(`${url}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on("error", () => resolve(false));
  });
}

export interface StartOptions {
  binary: string;
  home: string; // holds user-data, extensions and config
  folder: string;
  trust: boolean; // false: workspace trust on, so an unknown folder opens in Restricted Mode
  env: Record<string, string>;
  log: string;
}

export async function startCodeServer(o: StartOptions): Promise<CodeServer> {
  const port = await freePort();
  const args = [
    "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
    "--disable-getting-started-override", "--config", path.join(o.home, "config.yaml"),
    "--user-data-dir", path.join(o.home, "user-data"), "--extensions-dir", path.join(o.home, "extensions"),
    ...(o.trust ? ["--disable-workspace-trust"] : []),
    o.folder,
  ];
  const out = fs.openSync(o.log, "a");
  const proc: ChildProcess = spawn(o.binary, args, { env: { ...process.env, ...o.env }, stdio: ["ignore", out, out] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await healthy(url))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`code-server did not start (see ${o.log})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.once("exit", resolve));
        proc.kill("SIGTERM");
        await exited;
      }
      fs.closeSync(out);
    },
  };
}
