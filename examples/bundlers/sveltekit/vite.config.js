// SvelteKit with its Node adapter: `vite build` writes build/, a server (`node build`) that
// renders each page on the server before the browser takes over. Nothing for the polyfill.
import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({ plugins: [sveltekit({ adapter: adapter() })] });
