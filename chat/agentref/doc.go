// Package agentref lets a chat-service agent configuration name an in-cluster Agent
// ("namespace/name") instead of a Deployment URL. A Resolver turns the reference into the URL
// the agent bridge POSTs to, from the Agent's status.endpoints.internal, at call time, so a
// changed Service or port reaches the next run without anyone editing the configuration.
//
// The in-cluster URL is used on purpose instead of status.deploymentURL: the chat service runs
// next to the agents, so it should not leave the cluster through an Ingress, and an Agent that
// is reachable only inside the cluster has no deploymentURL at all.
//
// # Permissions
//
// KubeResolver needs get, list and watch on agents.agentry.dev and nothing else (in particular
// no Secrets: Agent references only name Secrets). config/rbac/chat_agent_reader_role.yaml
// holds these rules as the ClusterRole agentry-chat-agent-reader:
//
//	rules:
//	- apiGroups: [agentry.dev]
//	  resources: [agents]
//	  verbs: [get, list, watch]
//
// Bind it with a ClusterRoleBinding when Options.Namespaces is empty (all namespaces), or with
// a RoleBinding in each listed namespace otherwise.
package agentref
