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
  },
  server: { proxy: { '/api': 'http://localhost:8002', '/openapi.json': 'http://localhost:8002' } },
});
