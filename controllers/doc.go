// Package controllers holds the operator's reconcilers for Agent, Tool and FrontendAction.
package controllers
