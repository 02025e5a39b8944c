import { runConformance } from './conformance.js';

runConformance('contract');
