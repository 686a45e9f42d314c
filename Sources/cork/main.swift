print("cork")
