import { defineConfig } from 'vite';

// Preact's automatic JSX runtime; no inline scripts or styles (the CSP forbids them).
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Relative asset paths: the same build serves the Tauri window and the browser at /desk/.
  base: './',
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false } },
  test: { environment: 'node', include: ['src/**/*.test.ts', 'src/**/*.test.tsx'] },
} as never);
