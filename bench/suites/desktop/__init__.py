"""The Linux desktop suite: WAA-style tasks on Xvfb, OS-state checks and a scripted agent."""
