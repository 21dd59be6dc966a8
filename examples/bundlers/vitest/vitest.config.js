// Vitest runs the component tests in a DOM emulation: jsdom by default, happy-dom where a test file
// asks for it (`// @vitest-environment happy-dom`).
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { environment: 'jsdom' } });
