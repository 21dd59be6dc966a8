// esbuild copies no files it meets as new URL('./file.wasm', import.meta.url): the `inline`
// entry carries the three wasm modules inside. `npx esbuild src/main.js --bundle --outdir=dist`.
import 'modelcontext-polyfill/inline';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
