// Astro's defaults: a static site in dist/, each page's <script>s bundled by Vite.
import { defineConfig } from 'astro/config';

export default defineConfig({});
