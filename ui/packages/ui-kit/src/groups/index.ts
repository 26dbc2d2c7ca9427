export { ChatGroups } from "./ChatGroups";
export type { ChatGroupsProps } from "./props";
