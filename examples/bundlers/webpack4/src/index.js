import 'modelcontext-polyfill/inline';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
