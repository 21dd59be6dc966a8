// Bun's bundler copies no file it meets as new URL('./file.wasm', import.meta.url): the `inline`
// entry carries the wasm modules inside. `bun build ./index.html --outdir dist`. (With the main
// entry, copy node_modules/modelcontext-polyfill/dist/*.wasm into dist/ instead.)
import 'modelcontext-polyfill/inline';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
