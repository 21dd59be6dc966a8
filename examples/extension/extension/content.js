// The content script: a relay. It cannot see the page's JavaScript objects, so it carries messages
// between the page (window.postMessage) and the background service worker (a chrome.runtime.Port).
const FROM_PAGE = 'modelcontext-example-page';
const FROM_EXTENSION = 'modelcontext-example-extension';
const toPage = (kind, message) => window.postMessage({ from: FROM_EXTENSION, kind, message }, location.origin);
let port = null;

addEventListener('message', (e) => {
  if (e.source !== window || e.data?.from !== FROM_PAGE) return;
  const { kind, message } = e.data;
  if (kind === 'ready' && !port) {
    // The page's server is listening: open the port to the background, which connects its client.
    port = chrome.runtime.connect({ name: 'modelcontext-example' });
    port.onMessage.addListener((m) => toPage('message', m));
    port.onDisconnect.addListener(() => {
      port = null;
      toPage('disconnect');
    });
  } else if (kind === 'message') {
    port?.postMessage(message);
  } else if (kind === 'disconnect') {
    port?.disconnect();
    port = null;
  }
});

// The page may have been ready before this script ran: say hello, it answers 'ready'.
toPage('hello');
