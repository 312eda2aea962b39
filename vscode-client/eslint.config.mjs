// Lint the extension's TypeScript with typescript-eslint's type-aware recommended rules.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "out/**", "node_modules/**", "scripts/**", "eslint.config.mjs"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": ["error", {
        allowForKnownSafeCalls: [{ from: "package", name: ["test", "describe", "it"], package: "node:test" }],
      }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "eqeqeq": ["error", "always"],
      "no-restricted-imports": ["error", { paths: [] }],
    },
  },
  {
    // logic and webview code must stay testable in plain node: no `vscode` import there
    files: ["src/logic/**/*.ts", "src/webview/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: [{ name: "vscode", message: "logic modules must not import vscode; put it in src/vscode/" }] }] },
  },
);
