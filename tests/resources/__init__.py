"""Tests of skills, prompt templates and the system prompt."""
