// `deno bundle` (esbuild underneath) copies no file it meets as new URL('./file.wasm',
// import.meta.url): the `inline` entry carries the wasm modules inside.
// `deno bundle --platform browser -o dist/main.js src/main.js`.
import 'modelcontext-polyfill/inline';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
