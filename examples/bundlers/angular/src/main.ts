// Angular (the application builder, esbuild underneath): `ng build` copies no file a module names
// with new URL('./file.wasm', import.meta.url), so angular.json's "assets" entry copies the
// package's three wasm files beside the bundle. `ng serve` finds them in node_modules without it.
// (Or import 'modelcontext-polyfill/inline', which carries them: nothing to copy.)
import 'modelcontext-polyfill';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
import { Component, DestroyRef, inject, provideZoneChangeDetection, signal } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';

// A component's tool lives as long as the component: its AbortSignal unregisters it.
@Component({
  selector: 'app-root',
  template: `<p>{{ status() }}</p>`,
})
class App {
  status = signal('registering');
  constructor() {
    const done = new AbortController();
    inject(DestroyRef).onDestroy(() => done.abort());
    document.modelContext
      .registerTool(
        {
          name: 'component_status',
          description: "Reads the Angular component's status line",
          execute: () => this.status(),
        },
        { signal: done.signal },
      )
      .then(
        () => this.status.set('component_status registered'),
        (e) => this.status.set(`component_status not registered: ${e.message}`),
      );
  }
}

bootstrapApplication(App, { providers: [provideZoneChangeDetection({ eventCoalescing: true })] });
