// @vitest-environment happy-dom
import { cases } from './cases.js';

cases();
