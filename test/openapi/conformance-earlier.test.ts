import { runConformance } from './conformance.js';

runConformance('earlier');
