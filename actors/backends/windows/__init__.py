"""The Windows desktop backend: mss screenshots, UI Automation trees, SendInput.

Only the pure parts (action translation, tree normalization) import on any
platform; the parts that touch Windows import `uiautomation` and `pyautogui`
when first used, so Linux can test the rest against recorded trees.
"""
