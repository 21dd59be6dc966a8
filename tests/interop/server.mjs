// Shared by the interop tests: where the stdio example is, and the fixtures' payloads.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The built example (`cargo build --example stdio_server`); STDIO_SERVER_BIN overrides. */
export const SERVER =
  process.env.STDIO_SERVER_BIN ?? path.resolve(here, '../../target/debug/examples/stdio_server');

/** The 1×1 red PNG and minimal WAV of the conformance suite's reference server. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

export const TOOLS = [
  'echo',
  'test_audio_content',
  'test_embedded_resource',
  'test_error_handling',
  'test_image_content',
  'test_multiple_content_types',
  'test_simple_text',
  'test_tool_with_logging',
  'test_tool_with_progress',
];
