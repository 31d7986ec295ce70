import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console's build (decision 044). `npm run console:build` writes console/dist, which is committed and
// served by the service at /console; `npm run console:dev` serves the sources with the admin API proxied to
// a service started with `npm start`.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Everything is a file of its own: the CSP allows no inline script or style, and no data: fonts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/admin': 'http://127.0.0.1:3000', '/docs': 'http://127.0.0.1:3000' },
  },
});
