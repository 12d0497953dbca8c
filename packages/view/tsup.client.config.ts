import { defineConfig } from 'tsup'

// The viewer's page: one browser bundle (with Preact and the chart library inside, so nothing loads from the
// network) that the view handler serves and the HTML export inlines. Built after the package into dist/client/.
export default defineConfig({
  entry: { viewer: 'src/client/main.tsx' },
  outDir: 'dist/client',
  format: ['iife'],
  platform: 'browser',
  target: 'es2022',
  minify: true,
  // nothing else is written into dist/client; keep declarations anyway, as every build does
  clean: ['!**/*.d.ts'],
  sourcemap: false,
  noExternal: [/.*/],
  tsconfig: 'src/client/tsconfig.json',
  outExtension: () => ({ js: '.js' }),
})
