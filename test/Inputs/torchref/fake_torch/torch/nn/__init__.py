"""torch.nn of the numpy stand-in: Module and functional.conv2d."""

from . import functional  # noqa: F401


class Module:
    def __init__(self):
        pass

    def __call__(self, *args):
        return self.forward(*args)
