// esbuild copies no files it meets as new URL('./file.wasm', import.meta.url): the `inline`
// entry carries both wasm modules inside. `npx esbuild src/main.js --bundle --outdir=dist`.
import 'modelcontext-polyfill/inline';
import { run } from '../../shared/app.js';

run();
