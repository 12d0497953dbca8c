import { defineConfig } from 'tsup'

// The viewer's page: one browser bundle (with Preact and the chart library inside, so nothing loads from the
// network) that `bridle view` serves and `bridle inspect --html` inlines. Built after the CLI into dist/view/.
export default defineConfig({
  entry: { viewer: 'src/view/client/main.tsx' },
  outDir: 'dist/view',
  format: ['iife'],
  platform: 'browser',
  target: 'es2022',
  minify: true,
  clean: true,
  sourcemap: false,
  noExternal: [/.*/],
  tsconfig: 'src/view/client/tsconfig.json',
  outExtension: () => ({ js: '.js' }),
})
