// webpack 4 (Create React App 4, Vue CLI 4, Angular 11 and other apps of its time): it reads
// neither package `exports` nor `import.meta`, so the app imports the inline entry, which has
// the wasm modules inside and nothing to copy; webpack 4 finds it at
// node_modules/modelcontext-polyfill/inline/. The core is a lazy chunk: publicPath says where
// the chunks are served (webpack 4 has no 'auto'). On Node 17 and later webpack 4 needs
// NODE_OPTIONS=--openssl-legacy-provider (its md4 hashes), as the build script sets.
module.exports = { output: { publicPath: 'dist/' } };
