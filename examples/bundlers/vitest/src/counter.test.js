import { cases } from './cases.js';

cases();
