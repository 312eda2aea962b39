// Bundle the extension (node, CommonJS, `vscode` external) and the chat webview script (browser IIFE).
import { build } from "esbuild";

const common = { bundle: true, sourcemap: true, minify: process.env.HANDRAIL_MINIFY === "1", logLevel: "warning" };
await Promise.all([
  build({ ...common, entryPoints: ["src/vscode/extension.ts"], outfile: "dist/extension.js", platform: "node",
    format: "cjs", target: "node20", external: ["vscode"] }),
  build({ ...common, entryPoints: ["src/webview/main.ts"], outfile: "dist/webview.js", platform: "browser",
    format: "iife", target: "es2022" }),
]);
