import path from 'node:path';
import { defineConfig } from 'vite';

/**
 * The workbench is served by the API under /app (api/webApp.ts), so every asset URL starts there. No React plugin:
 * Vite's own oxc transform compiles the JSX (the plugin's current major could not be installed beside this stack).
 */
export default defineConfig({
  root: __dirname,
  base: '/app/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: path.join(__dirname, 'dist'),
    emptyOutDir: true,
    // Vega is loaded on the first chart (dynamic import), so the first page's JavaScript stays small
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
    rolldownOptions: {
      // React Query marks its modules "use client" for server-component bundlers; in a client-only bundle the
      // directive means nothing, and its warning (dozens of framed lines per build) buried the start command's log
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:8002', '/openapi.json': 'http://localhost:8002' } },
});
