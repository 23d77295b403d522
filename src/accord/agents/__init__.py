"""Agents: LLM seats, reference (scripted) seats and human seats."""

from accord.agents.base import Agent, Recorder
from accord.agents.llm import LLMAgent

__all__ = ["Agent", "LLMAgent", "Recorder"]
