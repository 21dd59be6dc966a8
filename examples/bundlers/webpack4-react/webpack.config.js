// React 17 with webpack 4, as a Create React App 4 app has them: webpack 4 reads neither package
// `exports` nor `import.meta`, so the app imports the hook's inline entry,
// modelcontext-polyfill/react/inline (found at node_modules/modelcontext-polyfill/react/inline/),
// which brings the polyfill with its wasm modules inside: nothing to copy. The core is a lazy
// chunk: publicPath says where the chunks are served (webpack 4 has no 'auto'). On Node 17 and
// later webpack 4 needs NODE_OPTIONS=--openssl-legacy-provider (its md4 hashes), as the build
// script sets.
module.exports = { output: { publicPath: 'dist/' } };
