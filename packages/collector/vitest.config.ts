import { dbmonProject } from "../../tooling/testing/src/project.js";

export default dbmonProject("collector");
