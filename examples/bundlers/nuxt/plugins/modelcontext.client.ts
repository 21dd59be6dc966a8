// The polyfill in the browser only (`.client`): it installs document.modelContext before the app
// mounts. Imported during server rendering as well, it would do nothing there (no document).
import 'modelcontext-polyfill';

export default defineNuxtPlugin(() => {});
